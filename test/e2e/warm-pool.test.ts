/**
 * Warm starts (src/runtime/warm-pool.ts): workers with a booted `claude` kept for a role's launch,
 * taken by new sessions whose launch is exactly theirs. Real workers, real `claude`, the scripted model.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type EventRecord, type Runtime } from '../../src/index.js';
import { projectKeyOf } from '../../src/worker/deferred-tools.js';
import {
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  readJournal,
  readUntil,
  timesSent,
  waitFor,
} from './helpers.js';

let harness: Harness | undefined;
let pooled: Runtime | undefined;
afterEach(async () => {
  await pooled?.close();
  pooled = undefined;
  await harness?.cleanup();
  harness = undefined;
});

/** A runtime on the harness's data dir that keeps one warm entry for the default role, in the harness's cwd. */
async function pooledRuntime(h: Harness): Promise<Runtime> {
  pooled = await createRuntime({ dataDir: h.dataDir, env: { ...h.env, CLAUDE_CWD: h.cwd }, warmPool: 1 });
  return pooled;
}

async function readyEntry(runtime: Runtime, not?: number): Promise<number> {
  const entry = await waitFor(() => runtime.warmEntries().find((each) => each.ready && each.pid !== not), {
    what: 'a warm entry with its claude booting',
    timeoutMs: 90_000,
  });
  return entry.pid;
}

async function workerPid(runtime: Runtime, sessionId: string): Promise<number | null> {
  const [execution] = await runtime.store.listExecutions(sessionId);
  return execution?.pid ?? null;
}

/** What a client reads of a turn, without ids, times and the SDK's own session ids. */
function shapeOf(journal: EventRecord[]): Array<[string, unknown]> {
  return journal
    .filter((event) => event.type !== 'claude.message')
    .map((event) => [event.type, event.type === 'agent.message' ? dataOf(event).text : null]);
}

describe('warm pool', () => {
  it('a pooled session gives the same events and transcript as an unpooled one', async () => {
    harness = await createHarness({ script: () => ({ text: 'the answer' }) });
    const h = harness;
    const runtime = await pooledRuntime(h);
    const entry = await readyEntry(runtime);

    const warm = await runtime.createSession({ prompt: 'same question', messageId: 'w-1' });
    expect(await workerPid(runtime, warm.session.id)).toBe(entry);
    await readUntil(runtime, warm.session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    const cold = await h.runtime.createSession({ prompt: 'same question', cwd: h.cwd, messageId: 'c-1' });
    expect(await workerPid(h.runtime, cold.session.id)).not.toBe(entry);
    await readUntil(h.runtime, cold.session.id, isEvent('work.settled'), { timeoutMs: 120_000 });

    const warmJournal = await checkGuarantees(runtime, warm.session.id, { acknowledged: ['w-1'] });
    const coldJournal = await checkGuarantees(h.runtime, cold.session.id, { acknowledged: ['c-1'] });
    expect(shapeOf(warmJournal)).toEqual(shapeOf(coldJournal));
    expect(shapeOf(warmJournal)).toContainEqual(['agent.message', 'the answer']);
    // The transcripts in the store: the same entries, in the same order.
    const transcriptOf = async (runtime: Runtime, sessionId: string) => {
      const session = (await runtime.getSession(sessionId)).session;
      const entries = await runtime.store.loadTranscript({
        projectKey: projectKeyOf(session.cwd),
        sessionId: session.nativeSessionId!,
      });
      return (entries ?? [])
        .filter((entry) => entry.type === 'user' || entry.type === 'assistant')
        .map((entry) => {
          const message = entry.message as { role?: string; content?: unknown } | undefined;
          return [entry.type, JSON.stringify(message?.content)];
        });
    };
    const warmTranscript = await transcriptOf(runtime, warm.session.id);
    expect(warmTranscript.length).toBeGreaterThan(0);
    expect(warmTranscript).toEqual(await transcriptOf(h.runtime, cold.session.id));
    // The pool refilled behind the session that took its entry.
    await readyEntry(runtime, entry);
  }, 240_000);

  it('a pool entry killed before it is taken is replaced, and the next session still works', async () => {
    harness = await createHarness({ script: () => ({ text: 'the answer' }) });
    const h = harness;
    const runtime = await pooledRuntime(h);
    const killed = await readyEntry(runtime);
    const itsClaude = childrenOf(killed);
    killGroup(killed);
    await waitFor(() => !isRunning(killed) && itsClaude.every((pid) => !isRunning(pid)), {
      what: 'the entry and its claude to die',
    });
    const replacement = await readyEntry(runtime, killed);

    const { session } = await runtime.createSession({ prompt: 'after the kill', messageId: 'k-1' });
    expect(await workerPid(runtime, session.id)).toBe(replacement);
    const journal = await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    expect(shapeOf(journal)).toContainEqual(['agent.message', 'the answer']);
    await checkGuarantees(runtime, session.id, { acknowledged: ['k-1'], model: h.model });
  }, 240_000);

  it('a pooled worker killed mid-turn loses and repeats nothing', async () => {
    const slow =
      'This reply streams slowly, four characters at a time, so the worker can be killed mid-turn.';
    harness = await createHarness({
      script: [{ text: slow, chunkDelayMs: 120, chunkSize: 4 }, { text: 'after the resume' }],
    });
    const h = harness;
    const runtime = await pooledRuntime(h);
    const entry = await readyEntry(runtime);
    const { session } = await runtime.createSession({ prompt: 'prompt p1', messageId: 'p-1' });
    expect(await workerPid(runtime, session.id)).toBe(entry);
    await waitFor(() => h.model.conversationRequests().length === 1, { what: 'the model request' });
    await waitFor(async () => (await readJournal(runtime, session.id)).some(isEvent('input.delivered')), {
      what: 'the delivery',
    });
    const seen = await readJournal(runtime, session.id);
    const itsClaude = childrenOf(entry);
    killGroup(entry);
    await waitFor(() => !isRunning(entry) && itsClaude.every((pid) => !isRunning(pid)), {
      what: 'the worker and its claude to die',
    });
    await runtime.reconcile();
    await checkGuarantees(runtime, session.id, { acknowledged: ['p-1'], seen, model: h.model });
    // Delivered before the kill: never sent again.
    expect((await runtime.listInputs(session.id))[0]?.state).toBe('delivered');

    const resumed = await runtime.resume(session.id);
    const before = (await readJournal(runtime, session.id)).length;
    await readUntil(runtime, session.id, isEvent('execution.started', resumed.id), { after: before - 1 });
    const after = (await readJournal(runtime, session.id)).length;
    await runtime.send(session.id, { text: 'prompt p2', messageId: 'p-2' });
    await readUntil(runtime, session.id, isEvent('work.settled', resumed.id), { after });
    expect(timesSent(h.model, 'prompt p1')).toBe(1);
    expect(timesSent(h.model, 'prompt p2')).toBe(1);
    await checkGuarantees(runtime, session.id, { acknowledged: ['p-1', 'p-2'], model: h.model });
  }, 240_000);

  it('does not serve a session whose launch differs (another cwd, another model)', async () => {
    harness = await createHarness({ script: () => ({ text: 'the answer' }) });
    const h = harness;
    const runtime = await pooledRuntime(h);
    const entry = await readyEntry(runtime);
    const elsewhere = join(h.root, 'elsewhere');
    mkdirSync(elsewhere);
    const other = await runtime.createSession({ prompt: 'in another directory', cwd: elsewhere });
    const otherModel = await runtime.createSession({ prompt: 'with another model', model: 'claude-other-1' });
    for (const { session } of [other, otherModel]) {
      expect(await workerPid(runtime, session.id)).not.toBe(entry);
      const journal = await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
      expect(journal.some(isEvent('agent.message'))).toBe(true);
    }
    // The entry is still there, untaken, for a session that fits.
    expect(runtime.warmEntries().map((each) => each.pid)).toEqual([entry]);
    expect(isRunning(entry)).toBe(true);
  }, 240_000);
});
