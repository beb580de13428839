/**
 * A client following a session's events (`runtime.events(..., { follow: true })`) when the worker
 * dies and nobody else is watching: the stream must show the failure, not wait forever.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  childrenOf,
  createHarness,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  readUntil,
  waitFor,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe.each(backends)('following events (%s)', (backend) => {
  it('a follower sees execution.failed when the worker dies mid-turn, with no one else reconciling', async () => {
    // The answer takes long enough that the worker is certainly killed mid-turn.
    harness = await createHarness({ backend, script: [{ text: 'slow answer', chunkDelayMs: 20_000 }] });
    const { runtime } = harness;
    const { session } = await runtime.createSession({ backend, prompt: 'hello', cwd: harness.cwd });
    await readUntil(runtime, session.id, isEvent('input.delivered'));
    const [execution] = await runtime.listExecutions(session.id);
    const pid = execution?.pid;
    expect(pid).toBeTypeOf('number');
    const children = childrenOf(pid!);
    killGroup(pid!);
    await waitFor(() => !isRunning(pid!) && children.every((child) => !isRunning(child)), {
      what: `the worker and its ${backend} to die`,
    });
    const seen = await readUntil(runtime, session.id, isEvent('execution.failed'), { timeoutMs: 15_000 });
    expect(seen.at(-1)?.type).toBe('execution.failed');
  });
});
