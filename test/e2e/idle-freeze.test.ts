/**
 * Idle `claude` processes are stopped (SIGSTOP) between turns and continued for the next input
 * (decision 0137): a stopped `claude` uses no CPU, keeps its conversation, and takes the next input
 * as the same process; one with a background shell is never stopped; stopping the session ends a
 * stopped `claude` too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpuSeconds } from '../../bench/lib/procfs.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { requestText } from '../../src/testing/index.js';
import {
  backgroundShellScript,
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  processState,
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

/** The session's live worker and its `claude` (the worker's one child). */
async function liveProcesses(h: Harness, sessionId: string): Promise<{ worker: number; claude: number }> {
  return waitFor(
    async () => {
      const live = (await h.runtime.getSession(sessionId)).live;
      const worker = live?.pid ?? undefined;
      const claude = worker ? childrenOf(worker)[0] : undefined;
      return worker && claude ? { worker, claude } : undefined;
    },
    { what: 'the live worker and its claude' },
  );
}

describe('idle claude processes are stopped between turns', () => {
  it('a stopped claude uses no CPU, takes the next input as the same process, and ends with the session', {
    timeout: 120_000,
  }, async () => {
    harness = await createHarness({
      script: [{ text: 'the first answer' }, { text: 'the second answer' }],
      env: { AGENTD_FREEZE_IDLE_MS: '300' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'remember the word plum', cwd: h.cwd });
    await readUntil(h.runtime, session.id, isEvent('work.settled'), { timeoutMs: 60_000 });
    const { worker, claude } = await liveProcesses(h, session.id);
    await waitFor(() => processState(claude) === 'T', { what: 'the idle claude to be stopped' });

    const before = cpuSeconds(claude);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(processState(claude), 'still stopped').toBe('T');
    expect(cpuSeconds(claude) - before, 'CPU used while stopped').toBe(0);

    const sent = await h.runtime.send(session.id, { text: 'which word?', messageId: 'after-freeze' });
    expect(sent.state).not.toBe('uncertain');
    await readUntil(h.runtime, session.id, (event) => {
      return event.type === 'agent.message' && dataOf(event).text === 'the second answer';
    });
    // The same worker and the same claude answered: nothing was restarted or resumed.
    expect(childrenOf(worker)).toEqual([claude]);
    const executions = await h.runtime.listExecutions(session.id);
    expect(executions).toHaveLength(1);
    const second = h.model
      .conversationRequests()
      .find((request) => requestText(request).includes('which word?'));
    expect(requestText(second!)).toContain('the first answer');
    expect(timesSent(h.model, 'which word?')).toBe(1);
    await waitFor(() => processState(claude) === 'T', { what: 'claude stopped again after the turn' });

    // Stopping the session ends the stopped claude and its worker (a stopped process would ignore SIGTERM).
    await h.runtime.stop(session.id);
    await waitFor(() => !isRunning(claude) && !isRunning(worker), {
      what: 'the stopped claude and its worker to exit',
      timeoutMs: 20_000,
    });
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['after-freeze'], model: h.model });
  });

  it('a claude with a background shell running is not stopped', { timeout: 120_000 }, async () => {
    harness = await createHarness({
      script: backgroundShellScript('sleep 6'),
      env: { AGENTD_FREEZE_IDLE_MS: '200' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'start a background job',
      cwd: h.cwd,
      config: { allowedTools: ['Bash'] },
    });
    await readUntil(h.runtime, session.id, isEvent('work.settled'), { timeoutMs: 60_000 });
    const { claude } = await liveProcesses(h, session.id);
    // Well past the 200 ms: the shell runs, so claude runs too, and reports the task's end itself.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(childrenOf(claude).length, 'the background shell').toBeGreaterThan(0);
    expect(processState(claude)).not.toBe('T');
    await readUntil(
      h.runtime,
      session.id,
      (event) =>
        event.type === 'claude.message' &&
        dataOf(event).subtype === 'background_tasks_changed' &&
        ((dataOf(event).raw as { tasks?: unknown[] }).tasks ?? []).length === 0,
      { timeoutMs: 60_000 },
    );
    // Once the task has ended and claude is quiet, it is stopped like any idle claude.
    await waitFor(() => processState(claude) === 'T', { what: 'claude stopped once the task ended' });
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });

  it('a warm pool entry waiting to be taken has its booted claude stopped, and a session takes it running', {
    timeout: 180_000,
  }, async () => {
    harness = await createHarness({
      script: () => ({ text: 'the answer' }),
      env: { AGENTD_FREEZE_IDLE_MS: '300' },
    });
    const h = harness;
    pooled = await createRuntime({ dataDir: h.dataDir, env: { ...h.env, CLAUDE_CWD: h.cwd }, warmPool: 1 });
    const runtime = pooled;
    const entry = await waitFor(() => runtime.warmEntries().find((each) => each.ready), {
      what: 'a warm entry',
      timeoutMs: 90_000,
    });
    const claude = await waitFor(() => childrenOf(entry.pid)[0], { what: "the entry's claude" });
    await waitFor(() => processState(claude) === 'T', { what: "the entry's booted claude to be stopped" });

    const { session } = await runtime.createSession({ prompt: 'a question', messageId: 'warm-1' });
    const [execution] = await runtime.store.listExecutions(session.id);
    expect(execution?.pid, 'the session took the entry').toBe(entry.pid);
    await readUntil(runtime, session.id, isEvent('work.settled'), { timeoutMs: 120_000 });
    expect(childrenOf(entry.pid), 'the same claude answered').toEqual([claude]);
    await checkGuarantees(runtime, session.id, { acknowledged: ['warm-1'], model: h.model });
  });
});
