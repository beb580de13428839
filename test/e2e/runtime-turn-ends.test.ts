/**
 * Where a turn ends: `work.settled` once per turn, after the turn's final event, retries included;
 * a stop that lands as a turn ends still stops the worker; a turn that cannot even start leaves
 * its input accepted.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type EventRecord } from '../../src/index.js';
import {
  checkGuarantees,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  readJournal,
  readUntil,
  waitFor,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** The turn's events as a library client reads them: from `after` up to and including `work.settled`. */
async function readTurn(h: Harness, sessionId: string, after: number): Promise<EventRecord[]> {
  return readUntil(h.runtime, sessionId, isEvent('work.settled'), { after });
}

// Claude only: the retry counts are claude's (CLAUDE_MAX_RETRIES becomes its own retry count too).
describe('work.settled: once per turn', () => {
  it('a retried turn that fails for good settles once, after its retries and its final agent.error', async () => {
    // claude tries twice (CLAUDE_MAX_RETRIES=1 becomes its own retry count), then agentd retries
    // once more, twice again: four 500s, then the turn is given up.
    harness = await createHarness({
      script: [
        { error: { status: 500 } },
        { error: { status: 500 } },
        { error: { status: 500 } },
        { error: { status: 500 } },
        { text: 'the second turn works' },
      ],
      env: { CLAUDE_MAX_RETRIES: '1', CLAUDE_RETRY_BACKOFF: '0.05', CLAUDE_RETRY_MAX_DELAY: '0.1' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'fail please',
      cwd: h.cwd,
      messageId: 'r-1',
    });
    const turn = await readTurn(h, session.id, 0);
    const types = turn.map((event) => event.type);
    // A client that stops at work.settled has seen the whole turn: agentd's retry and the final error.
    expect(turn.filter(isEvent('agent.retry')).map((event) => dataOf(event).by)).toContain('agentd');
    expect(types.filter((type) => type === 'agent.turn.completed').length).toBeGreaterThanOrEqual(2);
    expect(types.filter((type) => type === 'work.settled')).toHaveLength(1);
    expect(types.at(-2)).toBe('agent.error');
    expect(types.indexOf('agent.error')).toBe(types.length - 2);

    // The next turn settles once too, and nothing of the first turn came after its settle.
    const second = await h.runtime.send(session.id, { text: 'and now?', messageId: 'r-2' });
    const next = await readTurn(h, session.id, turn.at(-1)!.cursor);
    expect(next.filter(isEvent('work.settled'))).toHaveLength(1);
    expect(next.filter((event) => event.type === 'agent.retry' || event.type === 'agent.error')).toEqual([]);
    const journal = await checkGuarantees(h.runtime, session.id, { acknowledged: ['r-1', 'r-2'] });
    expect(journal.filter(isEvent('work.settled'))).toHaveLength(2);
    expect((await h.runtime.listInputs(session.id)).map((input) => [input.messageId, input.state])).toEqual([
      ['r-1', 'delivered'],
      ['r-2', 'delivered'],
    ]);
    expect(second.messageId).toBe('r-2');
  });
});

describe.each(backends)('stop: racing the end of a turn (%s)', (backend) => {
  it('a stop sent as the turn ends stops the worker, every time', async () => {
    const rounds = 6;
    harness = await createHarness({
      backend,
      script: Array.from({ length: rounds }, (_, index) => ({ text: `answer ${index}` })),
    });
    const h = harness;
    // A runtime that reads the journal every few milliseconds, to stop right as the answer lands.
    const fast = await createRuntime({ dataDir: h.dataDir, env: h.env, pollMs: 2 });
    try {
      const { session } = await h.runtime.createSession({ backend, cwd: h.cwd });
      for (let round = 0; round < rounds; round++) {
        const execution = await h.runtime.resume(session.id);
        const before = (await readJournal(h.runtime, session.id)).at(-1)?.cursor ?? 0;
        await h.runtime.send(session.id, { text: `prompt ${round}`, messageId: `s-${round}` });
        // The answer is in; its turn's result and settle follow within milliseconds.
        await readUntil(fast, session.id, isEvent('agent.message'), { after: before });
        expect(await fast.stop(session.id)).not.toBeNull();
        const events = await readUntil(h.runtime, session.id, isEvent('execution.stopped', execution.id), {
          after: before,
          timeoutMs: 20_000,
        });
        expect(dataOf(events.at(-1)!).reason).toBe('stop requested');
        const stopped = (await h.runtime.listExecutions(session.id)).find((each) => each.id === execution.id);
        expect(stopped?.state).toBe('stopped');
        await waitFor(() => !isRunning(stopped!.pid!), { what: `worker ${round} to exit` });
      }
      await checkGuarantees(h.runtime, session.id, {
        acknowledged: Array.from({ length: rounds }, (_, index) => `s-${index}`),
        model: h.model,
      });
    } finally {
      await fast.close();
    }
  });
});

// Both backends: claude's spawn fails with ENOENT; the Codex session finds the directory gone
// before it starts codex app-server (codex exec, before it, failed the turn with the input uncertain).
describe.each(backends)('a turn that cannot start (%s)', (backend) => {
  it('the backend cannot be started (its cwd is gone): the failure is journaled, the input stays accepted, not uncertain', async () => {
    harness = await createHarness({ backend, script: [{ text: 'delivered after all' }] });
    const h = harness;
    const cwd = join(h.root, 'gone');
    mkdirSync(cwd);
    const { session } = await h.runtime.createSession({ backend, cwd });
    rmSync(cwd, { recursive: true });
    const input = await h.runtime.send(session.id, { text: 'never sent', messageId: 'n-1' });
    const events = await readUntil(h.runtime, session.id, isEvent('execution.failed'));
    const failed = events.at(-1)!;
    expect(dataOf(failed).error).toMatchObject({ code: 'agent_start_failed' });
    expect(String((dataOf(failed).error as { message: string }).message)).toMatch(
      backend === 'codex' ? /working directory .*gone is not a directory/ : /ENOENT/,
    );
    expect(dataOf(failed).uncertainInputIds).toEqual([]);
    expect(events.some(isEvent('input.delivered'))).toBe(false);
    expect((await h.runtime.listInputs(session.id)).map((each) => [each.id, each.state])).toEqual([
      [input.id, 'accepted'],
    ]);
    const [execution] = await h.runtime.listExecutions(session.id);
    expect([execution?.state, execution?.error?.code]).toEqual(['failed', 'agent_start_failed']);
    expect(h.model.conversationRequests()).toHaveLength(0);

    // Once the directory is back, a resume delivers the input, once.
    mkdirSync(cwd);
    const resumed = await h.runtime.resume(session.id);
    await readUntil(h.runtime, session.id, isEvent('work.settled', resumed.id), { after: failed.cursor });
    expect((await h.runtime.listInputs(session.id))[0]?.state).toBe('delivered');
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['n-1'], model: h.model });
  });
});
