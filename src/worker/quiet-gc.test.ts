import { describe, expect, it } from 'vitest';
import { QuietCollection } from './quiet-gc.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('QuietCollection', () => {
  it('collects once, a while after a turn, when the worker is still quiet', async () => {
    const calls: unknown[] = [];
    const collection = new QuietCollection(
      20,
      () => true,
      (options) => calls.push(options),
    );
    collection.idle();
    expect(calls).toHaveLength(0);
    await sleep(60);
    expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
  });

  it('does not collect when a turn starts first, or when the worker is not quiet then', async () => {
    const calls: unknown[] = [];
    let quiet = true;
    const collection = new QuietCollection(
      20,
      () => quiet,
      (options) => calls.push(options),
    );
    collection.idle();
    collection.cancel();
    await sleep(60);
    quiet = false;
    collection.idle();
    await sleep(60);
    expect(calls).toHaveLength(0);
  });
});
