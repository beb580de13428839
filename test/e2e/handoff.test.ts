/**
 * The socket handoff (decision 0132): on SQLite the runtime hands an input for a live idle session
 * to its worker, which journals it and starts its turn in one transaction. Whatever goes wrong on
 * the way (a worker that does not answer, one killed after its commit), the runtime journals the
 * input itself under the same message id: one input, delivered at most once.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord, Runtime } from '../../src/index.js';
import { dataPaths } from '../../src/journal/data-dir.js';
import { handoffSocketPath } from '../../src/journal/handoff.js';
import { HandoffClient } from '../../src/runtime/handoff-client.js';
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
const client = new HandoffClient({ timeoutMs: 5000, slowForMs: 0 });
afterEach(async () => {
  client.close();
  await harness?.cleanup();
  harness = undefined;
});

/** What the runtime does on a send, straight to a worker's socket. */
function handOffTo(socket: string, message: Parameters<HandoffClient['handOff']>[1]) {
  return client.handOff(socket, message);
}

/** A session whose first turn is over, with its worker idle. */
async function idleSession(h: Harness): Promise<{ sessionId: string; execution: ExecutionRecord }> {
  const { session } = await h.runtime.createSession({ prompt: 'prompt one', cwd: h.cwd, messageId: 'm-1' });
  await readUntil(h.runtime, session.id, isEvent('work.settled'));
  const [execution] = await h.runtime.listExecutions(session.id);
  await waitFor(async () => (await h.runtime.store.getExecution(execution!.id))?.state === 'idle', {
    what: 'the worker to be idle',
  });
  return { sessionId: session.id, execution: execution! };
}

function socketOf(h: Harness, executionId: string): string {
  const path = handoffSocketPath(dataPaths(h.dataDir), executionId);
  if (!path) throw new Error('the data directory is too deep for a socket');
  return path;
}

/**
 * SIGSTOPs the worker's group at a moment it holds no write lock: a process frozen inside a
 * transaction (a lease renewal, its transcript) would block every writer, the runtime's too.
 */
async function freezeQuiet(h: Harness, pid: number): Promise<void> {
  const database = new Database(dataPaths(h.dataDir).database, { timeout: 0 });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      killGroup(pid, 'SIGSTOP');
      try {
        database.exec('BEGIN IMMEDIATE; ROLLBACK');
        return;
      } catch {
        killGroup(pid, 'SIGCONT');
        await sleep(20);
      }
    }
    throw new Error('the worker never let go of the write lock');
  } finally {
    database.close();
  }
}

async function settledAfter(runtime: Runtime, sessionId: string, cursor: number): Promise<void> {
  await readUntil(runtime, sessionId, isEvent('work.settled'), { after: cursor });
}

describe('handoff: a send to a live idle session on SQLite', () => {
  it('the worker journals the input and starts its turn in one commit; its socket is gone once it stops', async () => {
    harness = await createHarness({
      script: [{ text: 'first reply' }, { text: 'second reply' }, { text: 'third reply' }],
    });
    const h = harness;
    const { sessionId, execution } = await idleSession(h);
    const socket = socketOf(h, execution.id);
    expect(existsSync(socket)).toBe(true);

    // Straight to the socket: the reply is the input, already dispatching on this execution, and
    // both changes carry the one commit's time.
    let cursor = (await readJournal(h.runtime, sessionId)).length;
    const handed = await handOffTo(socket, {
      sessionId,
      executionId: execution.id,
      messageId: 'm-2',
      text: 'prompt two',
    });
    expect(handed && [handed.messageId, handed.state, handed.executionId]).toEqual([
      'm-2',
      'dispatching',
      execution.id,
    ]);
    expect(handed!.updatedAt).toBe(handed!.createdAt);
    await settledAfter(h.runtime, sessionId, cursor);

    // A message for another execution or session is refused and journals nothing.
    const inputs = (await h.runtime.listInputs(sessionId)).length;
    for (const wrong of [
      { sessionId, executionId: 'another', messageId: 'm-x', text: 'not for you' },
      { sessionId: 'another', executionId: execution.id, messageId: 'm-y', text: 'not for you' },
    ])
      expect(await handOffTo(socket, wrong)).toBeNull();
    expect(await h.runtime.listInputs(sessionId)).toHaveLength(inputs);

    // Through the runtime: the send returns the input its worker already took, with nothing left
    // for anyone to wake (journaled by the runtime, it would still be `accepted` here).
    await waitFor(async () => (await h.runtime.store.getExecution(execution.id))?.state === 'idle', {
      what: 'the worker to be idle again',
    });
    cursor = (await readJournal(h.runtime, sessionId)).length;
    const sent = await h.runtime.send(sessionId, { text: 'prompt three', messageId: 'm-3' });
    expect(['dispatching', 'delivered']).toContain(sent.state);
    expect(sent.executionId).toBe(execution.id);
    await settledAfter(h.runtime, sessionId, cursor);

    // A retry of the same message is the same input, delivered once.
    const again = await h.runtime.send(sessionId, { text: 'prompt three', messageId: 'm-3' });
    expect([again.id, again.state]).toEqual([sent.id, 'delivered']);
    const journal = await checkGuarantees(h.runtime, sessionId, {
      acknowledged: ['m-1', 'm-2', 'm-3'],
      model: h.model,
    });
    for (const text of ['prompt one', 'prompt two', 'prompt three']) expect(timesSent(h.model, text)).toBe(1);
    // One turn per input, in order, each ending well.
    const ids = (await h.runtime.listInputs(sessionId)).map((input) => [input.id]);
    expect(journal.filter(isEvent('agent.turn.completed')).map((event) => dataOf(event).inputIds)).toEqual(
      ids,
    );

    await h.runtime.stop(sessionId);
    await waitFor(() => !isRunning(execution.pid!), { what: 'the worker to exit' });
    expect(existsSync(socket)).toBe(false);
  });

  it('a frozen worker (SIGSTOP): the send journals the input itself after the timeout, the next one at once; thawed, the worker delivers each once', async () => {
    harness = await createHarness({
      script: [{ text: 'first reply' }, { text: 'second reply' }, { text: 'third reply' }],
    });
    const h = harness;
    const { sessionId, execution } = await idleSession(h);
    const cursor = (await readJournal(h.runtime, sessionId)).length;
    await freezeQuiet(h, execution.pid!);
    try {
      const started = Date.now();
      const sent = await h.runtime.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
      const tookMs = Date.now() - started;
      expect(sent.state).toBe('accepted');
      expect(tookMs).toBeGreaterThanOrEqual(450);
      expect(tookMs).toBeLessThan(10_000);
      // A worker that let a handoff time out is passed over for a while: no second wait.
      const next = Date.now();
      expect((await h.runtime.send(sessionId, { text: 'prompt three', messageId: 'm-3' })).state).toBe(
        'accepted',
      );
      expect(Date.now() - next).toBeLessThan(450);
    } finally {
      killGroup(execution.pid!, 'SIGCONT');
    }
    // Thawed, the worker reads the message the socket kept for it: the same input, already journaled.
    await waitFor(
      async () => (await h.runtime.listInputs(sessionId)).every((input) => input.state === 'delivered'),
      { what: 'both inputs to be delivered' },
    );
    await settledAfter(h.runtime, sessionId, cursor);
    const inputs = await h.runtime.listInputs(sessionId);
    expect(inputs.map((input) => [input.messageId, input.state, input.executionId])).toEqual([
      ['m-1', 'delivered', execution.id],
      ['m-2', 'delivered', execution.id],
      ['m-3', 'delivered', execution.id],
    ]);
    await checkGuarantees(h.runtime, sessionId, { acknowledged: ['m-1', 'm-2', 'm-3'], model: h.model });
    expect(timesSent(h.model, 'prompt two')).toBe(1);
    expect(timesSent(h.model, 'prompt three')).toBe(1);
  });

  it('a worker killed after it committed a handed input: the resent message is that input, never sent again', async () => {
    harness = await createHarness({ script: [{ text: 'first reply' }, { text: 'after resume' }] });
    const h = harness;
    const { sessionId, execution } = await idleSession(h);
    const socket = socketOf(h, execution.id);
    const children = childrenOf(execution.pid!);
    // Freeze the worker's claude, so that the input it dispatched cannot reach the model, then hand
    // the input over and kill the worker with its reply: as if the runtime's connection had broken.
    for (const child of children) process.kill(child, 'SIGSTOP');
    const handed = await handOffTo(socket, {
      sessionId,
      executionId: execution.id,
      messageId: 'm-2',
      text: 'prompt two',
    });
    expect(handed?.state).toBe('dispatching');
    killGroup(execution.pid!);
    await waitFor(() => !isRunning(execution.pid!) && children.every((child) => !isRunning(child)), {
      what: 'the worker and its claude to die',
    });

    expect(existsSync(socket), 'a killed worker leaves its socket').toBe(true);
    await h.runtime.reconcile();
    expect((await h.runtime.store.getInput(sessionId, 'm-2'))?.state).toBe('uncertain');
    expect(existsSync(socket), 'reconcile removes it').toBe(false);
    // The runtime resending it (its handoff lost) finds the same input and starts nothing.
    const resent = await h.runtime.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
    expect([resent.id, resent.state]).toEqual([handed?.id, 'uncertain']);
    expect((await h.runtime.getSession(sessionId)).live).toBeNull();
    expect(timesSent(h.model, 'prompt two')).toBe(0);
    await checkGuarantees(h.runtime, sessionId, { acknowledged: ['m-1', 'm-2'], model: h.model });
  });
});
