import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../errors/agentd-error.js';
import type { Store } from '../store.js';
import { type ContractContext, createTestSession } from './contract-context.js';

/**
 * A session whose lease was taken over: epoch 1 (the old worker) is stale, epoch 2 is current.
 * Holds an execution, an accepted input and one event, so refused writes can be checked to have
 * changed nothing.
 */
async function takenOverSession(store: Store) {
  const session = await createTestSession(store);
  const lease = { sessionId: session.id, ttlMs: 1_000, pid: null, processStartTime: null };
  await store.acquireLease({ ...lease, owner: 'old-worker', now: 1_000 });
  const execution = await store.createExecution({
    id: `${session.id}-exec`,
    sessionId: session.id,
    now: 1_000,
  });
  const { input } = await store.addInput({
    id: `${session.id}-input`,
    sessionId: session.id,
    messageId: 'm1',
    text: 'hello',
    now: 1_000,
  });
  await store.appendEvents(session.id, [{ type: 'execution.started', data: {} }], { epoch: 1, now: 1_000 });
  const takeover = await store.acquireLease({ ...lease, owner: 'new-worker', now: 5_000 });
  expect(takeover?.epoch).toBe(2);
  return { session, execution, input };
}

export function describeFencingContract(context: ContractContext): void {
  describe('fencing', () => {
    it('appendEvents: a stale epoch is LeaseLostError and appends nothing', async () => {
      const store = context.store();
      const { session } = await takenOverSession(store);
      const attempt = store.appendEvents(session.id, [{ type: 'agent.message', data: { text: 'late' } }], {
        epoch: 1,
        now: 6_000,
      });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      await expect(attempt).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await store.lastCursor(session.id)).toBe(1);
      expect(await store.readEvents(session.id)).toHaveLength(1);
    });

    it('updateInputStates: a stale epoch is LeaseLostError and changes nothing', async () => {
      const store = context.store();
      const { session, input } = await takenOverSession(store);
      const attempt = store.updateInputStates({
        sessionId: session.id,
        inputIds: [input.id],
        from: ['accepted'],
        to: 'dispatching',
        executionId: 'stale-exec',
        epoch: 1,
        now: 6_000,
      });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.getInput(session.id, 'm1')).toEqual(input);
    });

    it('updateExecution: a stale epoch is LeaseLostError and changes nothing', async () => {
      const store = context.store();
      const { execution } = await takenOverSession(store);
      const attempt = store.updateExecution(execution.id, { state: 'running', now: 6_000 }, { epoch: 1 });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.getExecution(execution.id)).toEqual(execution);
    });

    it('createInteraction: a stale epoch is LeaseLostError and creates nothing', async () => {
      const store = context.store();
      const { session } = await takenOverSession(store);
      const attempt = store.createInteraction(
        {
          id: `${session.id}-approval`,
          sessionId: session.id,
          executionId: null,
          kind: 'approval',
          toolName: 'Bash',
          toolUseId: 'toolu_1',
          request: { input: { command: 'ls' } },
          createdAt: 6_000,
        },
        { epoch: 1 },
      );
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.getInteraction(`${session.id}-approval`)).toBeNull();
      expect(await store.listInteractions({ sessionId: session.id })).toEqual([]);
    });

    it('fenced writes: the current epoch is accepted', async () => {
      const store = context.store();
      const { session, execution, input } = await takenOverSession(store);
      const [event] = await store.appendEvents(session.id, [{ type: 'agent.message', data: {} }], {
        epoch: 2,
        now: 6_000,
      });
      expect(event?.cursor).toBe(2);
      const moved = await store.updateInputStates({
        sessionId: session.id,
        inputIds: [input.id],
        from: ['accepted'],
        to: 'dispatching',
        executionId: execution.id,
        epoch: 2,
        now: 6_000,
      });
      expect(moved.map((record) => record.state)).toEqual(['dispatching']);
      const updated = await store.updateExecution(
        execution.id,
        { state: 'running', epoch: 2, now: 6_000 },
        { epoch: 2 },
      );
      expect(updated.state).toBe('running');
    });

    it('fenced writes: a released lease refuses its own epoch until the next owner takes it', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const lease = await store.acquireLease({
        sessionId: session.id,
        owner: 'worker',
        ttlMs: 1_000,
        pid: null,
        processStartTime: null,
        now: 1_000,
      });
      await store.releaseLease({ sessionId: session.id, epoch: lease!.epoch });
      const attempt = store.appendEvents(session.id, [{ type: 'agent.message', data: { text: 'late' } }], {
        epoch: lease!.epoch,
        now: 2_000,
      });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.lastCursor(session.id)).toBe(0);
    });

    it('fenced writes: a session that never had a lease refuses every epoch', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const attempt = store.appendEvents(session.id, [{ type: 'x', data: null }], { epoch: 1, now: 1 });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.lastCursor(session.id)).toBe(0);
    });

    it('unfenced writes: accepted whoever holds the lease', async () => {
      const store = context.store();
      const { session, execution } = await takenOverSession(store);
      const [event] = await store.appendEvents(session.id, [{ type: 'execution.failed', data: {} }], {
        now: 6_000,
      });
      expect(event?.cursor).toBe(2);
      const updated = await store.updateExecution(execution.id, {
        state: 'failed',
        endedAt: 6_000,
        now: 6_000,
      });
      expect(updated).toMatchObject({ state: 'failed', endedAt: 6_000 });
    });
  });
}
