import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { type ContractContext, createTestSession, uniqueId } from './contract-context.js';

export function describeExecutionContract(context: ContractContext): void {
  describe('executions', () => {
    it('createExecution: starts in state starting with epoch 0', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const execution = await store.createExecution({ id: 'exec-1', sessionId: session.id, now: 2_000 });
      expect(execution).toEqual({
        id: 'exec-1',
        sessionId: session.id,
        state: 'starting',
        epoch: 0,
        pid: null,
        processStartTime: null,
        error: null,
        createdAt: 2_000,
        updatedAt: 2_000,
        endedAt: null,
      });
      expect(await store.getExecution('exec-1')).toEqual(execution);
      expect(await store.getExecution('no-such-execution')).toBeNull();
    });

    it('createExecution: an id that exists is a conflict', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.createExecution({ id: 'exec-1', sessionId: session.id, now: 1 });
      await expect(
        store.createExecution({ id: 'exec-1', sessionId: session.id, now: 2 }),
      ).rejects.toBeInstanceOf(ConflictError);
    });

    it('createExecution: an unknown session is NotFoundError', async () => {
      await expect(
        context.store().createExecution({ id: 'exec-1', sessionId: 'no-such-session', now: 1 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('updateExecution: changes the given fields and keeps the rest', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const created = await store.createExecution({
        id: uniqueId('exec'),
        sessionId: session.id,
        now: 1_000,
      });
      const running = await store.updateExecution(created.id, {
        state: 'running',
        epoch: 3,
        pid: 777,
        processStartTime: '98765',
        now: 2_000,
      });
      expect(running).toEqual({
        ...created,
        state: 'running',
        epoch: 3,
        pid: 777,
        processStartTime: '98765',
        updatedAt: 2_000,
      });
      const failed = await store.updateExecution(created.id, {
        state: 'failed',
        error: { code: 'auth_failed', message: '401' },
        endedAt: 3_000,
        now: 3_000,
      });
      expect(failed).toEqual({
        ...running,
        state: 'failed',
        error: { code: 'auth_failed', message: '401' },
        endedAt: 3_000,
        updatedAt: 3_000,
      });
      const cleared = await store.updateExecution(created.id, { error: null, pid: null, now: 4_000 });
      expect(cleared).toMatchObject({ error: null, pid: null, state: 'failed', epoch: 3 });
      expect(await store.getExecution(created.id)).toEqual(cleared);
    });

    it('updateExecution: with stateFrom, a state not listed stays; the other fields change', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const created = await store.createExecution({ id: uniqueId('exec'), sessionId: session.id, now: 1 });
      await store.updateExecution(created.id, { state: 'stopping', now: 2 });
      const kept = await store.updateExecution(
        created.id,
        { state: 'idle', pid: 55, now: 3 },
        { stateFrom: ['running', 'idle'] },
      );
      expect([kept.state, kept.pid, kept.updatedAt]).toEqual(['stopping', 55, 3]);
      const moved = await store.updateExecution(
        created.id,
        { state: 'idle', now: 4 },
        { stateFrom: ['stopping'] },
      );
      expect(moved.state).toBe('idle');
    });

    it('updateExecution: an unknown id is NotFoundError', async () => {
      await expect(
        context.store().updateExecution('no-such-execution', { state: 'stopped', now: 1 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it("listExecutions: a session's executions in creation order", async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const other = await createTestSession(store);
      await store.createExecution({ id: 'b-first', sessionId: session.id, now: 5 });
      await store.createExecution({ id: 'elsewhere', sessionId: other.id, now: 5 });
      await store.createExecution({ id: 'a-second', sessionId: session.id, now: 5 });
      expect((await store.listExecutions(session.id)).map((execution) => execution.id)).toEqual([
        'b-first',
        'a-second',
      ]);
      expect(await store.listExecutions('no-such-session')).toEqual([]);
    });

    it('listExecutionsByState: executions in any of the states, across sessions', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      const states = ['starting', 'running', 'idle', 'stopping', 'stopped', 'failed'] as const;
      for (const [index, state] of states.entries()) {
        const session = index % 2 === 0 ? first : second;
        await store.createExecution({ id: `exec-${state}`, sessionId: session.id, now: index });
        if (state !== 'starting') {
          await store.updateExecution(`exec-${state}`, { state, now: index });
        }
      }
      const live = await store.listExecutionsByState(['starting', 'running', 'idle', 'stopping']);
      expect(live.map((execution) => execution.id)).toEqual([
        'exec-starting',
        'exec-running',
        'exec-idle',
        'exec-stopping',
      ]);
      expect((await store.listExecutionsByState(['failed'])).map((execution) => execution.id)).toEqual([
        'exec-failed',
      ]);
      expect(await store.listExecutionsByState([])).toEqual([]);
    });
  });
}
