/**
 * SIGKILL of a worker (with its `claude` or `codex`: they share a process group) at named points,
 * each followed by reconcile, DESIGN.md's guarantees 1–5, and an explicit resume that works.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord, Runtime } from '../../src/index.js';
import { toolResults } from '../../src/testing/index.js';
import {
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  lastUserText,
  readJournal,
  readUntil,
  timesSent,
  waitFor,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function firstExecution(runtime: Runtime, sessionId: string): Promise<ExecutionRecord> {
  const [execution] = await runtime.store.listExecutions(sessionId);
  if (!execution?.pid) throw new Error('no worker was started');
  return execution;
}

/** SIGKILLs the worker's process group and waits until the worker and its children are gone. */
async function killWorker(pid: number): Promise<void> {
  const children = childrenOf(pid);
  killGroup(pid);
  await waitFor(() => !isRunning(pid) && children.every((child) => !isRunning(child)), {
    what: 'the worker and its agent process to die',
  });
}

/** Resumes, then sends a new input and waits until it is answered; returns the new execution. */
async function resumeAndSend(runtime: Runtime, sessionId: string, text: string): Promise<ExecutionRecord> {
  const execution = await runtime.resume(sessionId);
  const after = (await readJournal(runtime, sessionId)).length;
  await readUntil(runtime, sessionId, isEvent('execution.started', execution.id), { after: after - 1 });
  const before = (await readJournal(runtime, sessionId)).length;
  const input = await runtime.send(sessionId, { text, messageId: `new:${text}` });
  await readUntil(runtime, sessionId, isEvent('work.settled', execution.id), { after: before });
  expect((await runtime.listInputs(sessionId)).find((each) => each.id === input.id)?.state).toBe('delivered');
  return execution;
}

describe.each(backends)('chaos: SIGKILL of a worker at named points (%s)', (backend) => {
  it('(a) before its first journal write: execution failed, the input stays accepted and is delivered once after resume', async () => {
    harness = await createHarness({ backend, script: [{ text: 'first answer' }, { text: 'second answer' }] });
    const h = harness;
    const { session, input } = await h.runtime.createSession({
      backend,
      prompt: 'prompt a1',
      cwd: h.cwd,
      messageId: 'a-1',
    });
    const execution = await firstExecution(h.runtime, session.id);
    await killWorker(execution.pid!);

    const reconciled = await h.runtime.reconcile();
    expect(reconciled.map((each) => [each.id, each.state, each.error?.code])).toEqual([
      [execution.id, 'failed', 'worker_died'],
    ]);
    const journal = await checkGuarantees(h.runtime, session.id, { acknowledged: ['a-1'], model: h.model });
    // It died before it could write: the journal holds the input and the failure only.
    expect(journal.map((event) => event.type)).toEqual(['input.accepted', 'execution.failed']);
    expect(dataOf(journal[1]!).uncertainInputIds).toEqual([]);
    expect((await h.runtime.listInputs(session.id))[0]?.state).toBe('accepted');
    expect(h.model.conversationRequests()).toHaveLength(0);

    // Never restarted on its own: only an explicit resume starts a worker, which delivers it.
    expect((await h.runtime.getSession(session.id)).live).toBeNull();
    const resumed = await h.runtime.resume(session.id);
    await readUntil(h.runtime, session.id, isEvent('work.settled', resumed.id));
    expect((await h.runtime.listInputs(session.id)).find((each) => each.id === input?.id)?.state).toBe(
      'delivered',
    );
    const before = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'prompt a2', messageId: 'a-2' });
    await readUntil(h.runtime, session.id, isEvent('work.settled', resumed.id), { after: before });
    expect(timesSent(h.model, 'prompt a1')).toBe(1);
    expect(timesSent(h.model, 'prompt a2')).toBe(1);
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['a-1', 'a-2'], model: h.model });
  });

  it('(b) mid-stream: the delivered input is not replayed; resume continues with new inputs only', async () => {
    const slow =
      'This reply streams slowly, four characters at a time, so the worker can be killed mid-stream.';
    harness = await createHarness({
      backend,
      script: [{ text: slow, chunkDelayMs: 120, chunkSize: 4 }, { text: 'after the resume' }],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      backend,
      prompt: 'prompt b1',
      cwd: h.cwd,
      messageId: 'b-1',
    });
    const execution = await firstExecution(h.runtime, session.id);
    await waitFor(() => h.model.conversationRequests().length === 1, { what: 'the model request' });
    await waitFor(async () => (await readJournal(h.runtime, session.id)).some(isEvent('input.delivered')), {
      what: 'the delivery',
    });
    const seen = await readJournal(h.runtime, session.id);
    expect(childrenOf(execution.pid!).length, `the worker runs ${backend}`).toBeGreaterThan(0);
    await killWorker(execution.pid!);
    expect((await readJournal(h.runtime, session.id)).some(isEvent('agent.turn.completed'))).toBe(false);

    await h.runtime.reconcile();
    const failed = (await h.runtime.listExecutions(session.id))[0];
    expect([failed?.state, failed?.error?.code]).toEqual(['failed', 'worker_died']);
    const journal = await checkGuarantees(h.runtime, session.id, {
      seen,
      acknowledged: ['b-1'],
      model: h.model,
    });
    expect(journal.filter(isEvent('execution.failed', execution.id))).toHaveLength(1);
    expect((await h.runtime.listInputs(session.id))[0]?.state).toBe('delivered');

    const resumed = await resumeAndSend(h.runtime, session.id, 'prompt b2');
    expect(resumed.id).not.toBe(execution.id);
    expect(timesSent(h.model, 'prompt b1')).toBe(1);
    expect(h.model.conversationRequests()).toHaveLength(2);
    await checkGuarantees(h.runtime, session.id, { seen, model: h.model });
  });

  it('(c) during dispatch: the input becomes uncertain and is never sent again, not even when resent with its id', async () => {
    harness = await createHarness({
      backend,
      script: [{ text: 'reply to the first' }, { text: 'reply after resume' }],
    });
    const h = harness;
    const { session, input } = await h.runtime.createSession({
      backend,
      prompt: 'prompt c1',
      cwd: h.cwd,
      messageId: 'c-1',
    });
    const execution = await firstExecution(h.runtime, session.id);
    // The worker has written its first events and handed the input to the SDK; the agent has not
    // taken it yet (claude's echo, codex's turn.started). Freeze the group there, check, kill it.
    await waitFor(async () => (await h.runtime.store.getInput(session.id, 'c-1'))?.state === 'dispatching', {
      what: 'the input to be dispatching',
      intervalMs: 5,
    });
    killGroup(execution.pid!, 'SIGSTOP');
    expect((await h.runtime.store.getInput(session.id, 'c-1'))?.state).toBe('dispatching');
    await killWorker(execution.pid!);
    const sentBeforeDeath = timesSent(h.model, 'prompt c1');

    await h.runtime.reconcile();
    const journal = await checkGuarantees(h.runtime, session.id, { acknowledged: ['c-1'], model: h.model });
    const failedEvent = journal.find(isEvent('execution.failed', execution.id));
    expect(failedEvent && dataOf(failedEvent).uncertainInputIds).toEqual([input?.id]);
    expect(journal.some(isEvent('execution.started', execution.id))).toBe(true);
    expect((await h.runtime.store.getInput(session.id, 'c-1'))?.state).toBe('uncertain');

    // Resending the same id and text returns the uncertain input and starts nothing.
    const resent = await h.runtime.send(session.id, { text: 'prompt c1', messageId: 'c-1' });
    expect([resent.id, resent.state]).toEqual([input?.id, 'uncertain']);
    expect((await h.runtime.getSession(session.id)).live).toBeNull();

    const resumed = await resumeAndSend(h.runtime, session.id, 'prompt c2');
    expect((await h.runtime.store.getInput(session.id, 'c-1'))?.state).toBe('uncertain');
    expect(timesSent(h.model, 'prompt c1')).toBe(sentBeforeDeath);
    const after = await checkGuarantees(h.runtime, session.id, { model: h.model });
    expect(
      after.filter((event) => event.type === 'input.delivered' && dataOf(event).inputId === input?.id),
    ).toEqual([]);
    expect(resumed.state).not.toBe('failed');
  });
});

// Claude only: (b3) waits for a tool call that a claude orphaned by its worker would run (codex
// starts per turn, with no model request left open between), (b2) is about claude's transcript in
// the store, (d) about an approval scripted as claude's tool call (Codex approvals through a SIGKILL
// are in codex.test.ts, 0141).
describe('chaos: SIGKILL of a worker at named points, claude only', () => {
  it('(b3) the worker alone killed mid-turn: its claude dies at once, and no tool of that turn runs', async () => {
    // The model answers late, with a tool call that would leave a file behind: an orphaned claude
    // would get it after its worker died and run the tool with nothing journaled.
    harness = await createHarness({
      script: [
        {
          delayMs: 3000,
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: 'touch orphan-ran.txt', description: 'touch' },
            },
          ],
        },
        { text: 'ran it' },
      ],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'prompt b3',
      cwd: h.cwd,
      messageId: 'b-3',
      config: { allowedTools: ['Bash'] },
    });
    const execution = await firstExecution(h.runtime, session.id);
    await waitFor(() => h.model.conversationRequests().length === 1, { what: 'the model request' });
    const [claude] = childrenOf(execution.pid!);
    expect(claude, 'the worker runs claude').toBeDefined();
    const askedAt = Date.now();
    process.kill(execution.pid!, 'SIGKILL');
    // No reconcile: the kernel ends claude with its worker.
    await waitFor(() => !isRunning(claude!), {
      timeoutMs: 1000,
      intervalMs: 10,
      what: 'claude to die with its worker',
    });

    // Nothing shows that a thing did not happen: wait past the model's answer, then look.
    await sleep(Math.max(0, askedAt + 4000 - Date.now()));
    expect(existsSync(join(h.cwd, 'orphan-ran.txt'))).toBe(false);
    expect(h.model.conversationRequests()).toHaveLength(1);
    await h.runtime.reconcile();
    const failed = (await h.runtime.listExecutions(session.id))[0];
    expect([failed?.state, failed?.error?.code]).toEqual(['failed', 'worker_died']);
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['b-3'], model: h.model });
  });

  it('(b2) before its transcript reached the store: resume starts a new claude session instead of failing', async () => {
    harness = await createHarness({
      script: (request) =>
        lastUserText(request).includes('prompt b21')
          ? { text: 'never finished', delayMs: 60_000 }
          : { text: 'fresh start' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'prompt b21',
      cwd: h.cwd,
      messageId: 'b2-1',
    });
    const execution = await firstExecution(h.runtime, session.id);
    await readUntil(h.runtime, session.id, isEvent('session.started'));
    await killWorker(execution.pid!);
    await h.runtime.reconcile();
    // The state a kill leaves when the SDK had not mirrored anything yet: a native id, no transcript.
    const native = (await h.runtime.getSession(session.id)).session.nativeSessionId!;
    const projectKey = h.cwd.replace(/[^a-zA-Z0-9]/g, '-');
    await h.runtime.store.deleteTranscript({ projectKey, sessionId: native });
    expect(await h.runtime.store.loadTranscript({ projectKey, sessionId: native })).toBeNull();

    const resumed = await resumeAndSend(h.runtime, session.id, 'prompt b22');
    expect((await h.runtime.getSession(session.id)).session.nativeSessionId).not.toBe(native);
    const journal = await checkGuarantees(h.runtime, session.id, { acknowledged: ['b2-1'], model: h.model });
    expect(journal.filter(isEvent('agent.error', resumed.id))).toEqual([]);
    expect(timesSent(h.model, 'prompt b22')).toBe(1);
  });

  it('(d) while an approval is pending: it stays pending through death and resume, then the denial reaches the model', async () => {
    harness = await createHarness({
      script: [
        {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: 'touch denied.txt', description: 'make a file' },
            },
          ],
        },
        { text: 'understood, no file' },
        { text: 'next reply' },
      ],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'prompt d1', cwd: h.cwd, messageId: 'd-1' });
    const execution = await firstExecution(h.runtime, session.id);
    const requested = (await readUntil(h.runtime, session.id, isEvent('interaction.requested'))).at(-1)!;
    const interactionId = (dataOf(requested).interaction as { id: string }).id;
    await killWorker(execution.pid!);

    await h.runtime.reconcile();
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['d-1'], pending: [interactionId] });
    expect((await h.runtime.listExecutions(session.id))[0]?.state).toBe('failed');

    // A resumed worker asks again and waits: nothing is approved on its own.
    const resumed = await h.runtime.resume(session.id);
    await readUntil(h.runtime, session.id, isEvent('execution.started', resumed.id));
    await waitFor(async () => (await h.runtime.getSession(session.id)).live?.state === 'running', {
      what: 'the resumed worker to continue the turn',
    });
    await checkGuarantees(h.runtime, session.id, { pending: [interactionId] });
    expect(existsSync(join(h.cwd, 'denied.txt'))).toBe(false);

    await h.runtime.answer(interactionId, { decision: 'deny', reason: 'No files on this machine, please.' });
    await readUntil(h.runtime, session.id, isEvent('work.settled', resumed.id));
    const last = h.model.conversationRequests().at(-1)!;
    expect(toolResults(last)).toEqual([
      expect.objectContaining({
        content: expect.stringContaining('No files on this machine'),
        isError: true,
      }),
    ]);
    expect(existsSync(join(h.cwd, 'denied.txt'))).toBe(false);

    const before = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'prompt d2', messageId: 'd-2' });
    await readUntil(h.runtime, session.id, isEvent('work.settled', resumed.id), { after: before });
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['d-1', 'd-2'], model: h.model });
  });
});
