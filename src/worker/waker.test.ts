import { describe, expect, it } from 'vitest';
import { Waker } from './waker.js';

describe('Waker', () => {
  it('wake ends the naps under way', async () => {
    const waker = new Waker();
    const naps = [waker.napper()(600_000), waker.napper()(600_000)];
    waker.wake();
    await Promise.all(naps);
  });

  it("a wake while a loop is not napping ends that loop's next nap at once, and only that one", async () => {
    const waker = new Waker();
    const nap = waker.napper();
    waker.wake();
    await nap(600_000);
    // The wake was taken: the nap after it sleeps until the next one.
    let ended = false;
    const next = nap(600_000).then(() => {
      ended = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ended).toBe(false);
    waker.wake();
    await next;
    expect(ended).toBe(true);
  });

  it("each loop keeps its own wake: one loop woken while napping does not take another loop's", async () => {
    const waker = new Waker();
    const napping = waker.napper();
    const busy = waker.napper();
    const asleep = napping(600_000);
    waker.wake();
    await asleep;
    await busy(600_000);
  });
});
