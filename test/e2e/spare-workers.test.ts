/**
 * Spare workers (src/runtime/warm-pool.ts): worker processes with agentd and the SDK loaded and no
 * `claude`, kept for whatever session starts or wakes next. A new session no warm entry fits and a
 * hibernated session's next input both take one, and behave as with a worker started for them.
 * Real workers, real `claude` (and `codex`), the scripted model.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { requestText } from '../../src/testing/index.js';
import {
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  hibernated,
  isEvent,
  isRunning,
  killGroup,
  readJournal,
  readUntil,
  timesSent,
  waitFor,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
let spared: Runtime | undefined;
afterEach(async () => {
  await spared?.close();
  spared = undefined;
  await harness?.cleanup();
  harness = undefined;
});

/** A runtime on the harness's data dir that keeps one spare worker (and no warm entries). */
async function sparedRuntime(h: Harness): Promise<Runtime> {
  spared = await createRuntime({ dataDir: h.dataDir, env: h.env, spareWorkers: 1 });
  return spared;
}

/** The PID of a spare that has loaded the SDK, other than `not`. */
async function readySpare(runtime: Runtime, not?: number): Promise<number> {
  const entry = await waitFor(
    () => runtime.warmEntries().find((each) => each.spare && each.ready && each.pid !== not),
    { what: 'a spare worker with its SDK loaded', timeoutMs: 90_000 },
  );
  return entry.pid;
}

/** The session's newest execution. */
async function newestExecution(runtime: Runtime, sessionId: string) {
  const executions = await runtime.store.listExecutions(sessionId);
  return executions.at(-1)!;
}

/** Each test starts two workers and their agents in turn: slow on a loaded machine. */
const timeout = 240_000;

describe.each(backends)('spare workers (%s)', (backend) => {
  it('a new session, then its wake from hibernation, each take a spare and the pool refills', {
    timeout,
  }, async () => {
    harness = await createHarness({
      backend,
      script: [{ text: 'the first answer' }, { text: 'the second answer' }],
      env: { AGENTD_IDLE_TIMEOUT_MS: '1000' },
    });
    const h = harness;
    const runtime = await sparedRuntime(h);
    const first = await readySpare(runtime);

    const { session } = await runtime.createSession({
      backend,
      prompt: 'remember the word plum',
      cwd: h.cwd,
      messageId: 's-1',
    });
    const started = await newestExecution(runtime, session.id);
    expect(started.pid).toBe(first);
    await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    // The spare's captured output is the execution's, where a started worker's would be.
    expect(existsSync(join(h.dataDir, 'logs', `${started.id}.out`))).toBe(true);

    const second = await readySpare(runtime, first);
    await hibernated(runtime, session.id);
    const native = (await runtime.getSession(session.id)).session.nativeSessionId;
    const woken = await runtime.send(session.id, { text: 'which word?', messageId: 's-2' });
    expect(woken.state).not.toBe('uncertain');
    expect((await newestExecution(runtime, session.id)).pid).toBe(second);
    const journal = await readUntil(
      runtime,
      session.id,
      (event) => event.type === 'agent.message' && dataOf(event).text === 'the second answer',
      { timeoutMs: 120_000 },
    );
    expect(journal.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'the first answer',
      'the second answer',
    ]);
    // The woken worker resumed the native session: the model was given the first turn again.
    const wake = h.model
      .conversationRequests()
      .find((request) => requestText(request).includes('which word?'));
    expect(wake && requestText(wake)).toContain('remember the word plum');
    expect((await runtime.getSession(session.id)).session.nativeSessionId).toBe(native);
    await readUntil(runtime, session.id, isEvent('work.settled'), { after: journal.length - 1 });
    await checkGuarantees(runtime, session.id, { acknowledged: ['s-1', 's-2'], model: h.model });
  });
});

describe('spare workers', () => {
  it('a spare killed mid-turn after a wake loses and repeats nothing', { timeout }, async () => {
    const slow =
      'This reply streams slowly, four characters at a time, so the worker can be killed mid-turn.';
    harness = await createHarness({
      script: [
        { text: 'the first answer' },
        { text: slow, chunkDelayMs: 120, chunkSize: 4 },
        { text: 'after' },
      ],
      env: { AGENTD_IDLE_TIMEOUT_MS: '1000' },
    });
    const h = harness;
    const runtime = await sparedRuntime(h);
    const { session } = await runtime.createSession({ prompt: 'prompt p1', cwd: h.cwd, messageId: 'p-1' });
    await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    await hibernated(runtime, session.id);
    const spare = await readySpare(runtime);

    const p2 = await runtime.send(session.id, { text: 'prompt p2', messageId: 'p-2' });
    expect((await newestExecution(runtime, session.id)).pid).toBe(spare);
    await waitFor(() => timesSent(h.model, 'prompt p2') === 1, { what: 'the wake turn at the model' });
    await waitFor(
      async () =>
        (await readJournal(runtime, session.id)).some(
          (event) => event.type === 'input.delivered' && dataOf(event).inputId === p2.id,
        ),
      { what: 'the delivery' },
    );
    const seen = await readJournal(runtime, session.id);
    const itsChildren = childrenOf(spare);
    killGroup(spare);
    await waitFor(() => !isRunning(spare) && itsChildren.every((pid) => !isRunning(pid)), {
      what: 'the worker and its claude to die',
    });
    await runtime.reconcile();
    await checkGuarantees(runtime, session.id, { acknowledged: ['p-1', 'p-2'], seen, model: h.model });
    // Delivered before the kill: never sent again.
    const inputs = await runtime.listInputs(session.id);
    expect(inputs.find((input) => input.messageId === 'p-2')?.state).toBe('delivered');

    await runtime.resume(session.id);
    await runtime.send(session.id, { text: 'prompt p3', messageId: 'p-3' });
    await readUntil(
      runtime,
      session.id,
      (event) => event.type === 'agent.message' && dataOf(event).text === 'after',
      { timeoutMs: 120_000 },
    );
    for (const prompt of ['prompt p1', 'prompt p2', 'prompt p3']) expect(timesSent(h.model, prompt)).toBe(1);
    await checkGuarantees(runtime, session.id, { acknowledged: ['p-1', 'p-2', 'p-3'], model: h.model });
  });

  it('a spare killed before it is taken is replaced; closing the runtime ends the one it keeps', {
    timeout,
  }, async () => {
    harness = await createHarness({ script: () => ({ text: 'the answer' }) });
    const h = harness;
    const runtime = await sparedRuntime(h);
    const killed = await readySpare(runtime);
    killGroup(killed);
    await waitFor(() => !isRunning(killed), { what: 'the spare to die' });
    const replacement = await readySpare(runtime, killed);

    const { session } = await runtime.createSession({
      prompt: 'after the kill',
      cwd: h.cwd,
      messageId: 'k-1',
    });
    expect((await newestExecution(runtime, session.id)).pid).toBe(replacement);
    await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    await checkGuarantees(runtime, session.id, { acknowledged: ['k-1'], model: h.model });

    const kept = await readySpare(runtime, replacement);
    await runtime.close();
    spared = undefined;
    await waitFor(() => !isRunning(kept), { what: 'the untaken spare to exit with its runtime' });
    // The session's worker, taken, is not the runtime's: it outlives it.
    expect(isRunning(replacement)).toBe(true);
  });
});
