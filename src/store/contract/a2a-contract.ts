import { describe, expect, it } from 'vitest';
import type { A2aStore, A2aTaskRecord } from '../a2a-store.js';
import { type ContractContext, uniqueId } from './contract-context.js';

type NewTask = Omit<A2aTaskRecord, 'updatedAt'> & { now: number };

function task(overrides: Partial<NewTask> = {}): NewTask {
  const id = overrides.id ?? uniqueId('task');
  return {
    id,
    contextId: 'context-1',
    state: 'TASK_STATE_WORKING',
    statusTimestamp: '2026-01-01T00:00:01.000Z',
    task: { id, contextId: 'context-1', status: { state: 'TASK_STATE_WORKING' }, history: [{ text: 'hi' }] },
    now: 1_000,
    ...overrides,
  };
}

async function ids(store: A2aStore, options: Parameters<A2aStore['listA2aTasks']>[0] = {}) {
  const { tasks, total } = await store.listA2aTasks(options);
  return { ids: tasks.map((record) => record.id), total };
}

export function describeA2aContract(context: ContractContext<A2aStore>): void {
  describe('a2a tasks', () => {
    it('saveA2aTask: stores the task as given and getA2aTask reads it back', async () => {
      const store = context.store();
      const saved = task();
      await store.saveA2aTask(saved);
      const { now, ...rest } = saved;
      expect(await store.getA2aTask(saved.id)).toEqual({ ...rest, updatedAt: now });
      expect(await store.getA2aTask('no-such-task')).toBeNull();
    });

    it('saveA2aTask: a second save with the same id replaces the first', async () => {
      const store = context.store();
      const first = task({ id: 'task-a' });
      await store.saveA2aTask(first);
      const second = task({
        id: 'task-a',
        state: 'TASK_STATE_COMPLETED',
        statusTimestamp: '2026-01-01T00:00:09.000Z',
        task: { id: 'task-a', status: { state: 'TASK_STATE_COMPLETED' } },
        now: 2_000,
      });
      await store.saveA2aTask(second);
      expect(await store.getA2aTask('task-a')).toMatchObject({
        state: 'TASK_STATE_COMPLETED',
        statusTimestamp: '2026-01-01T00:00:09.000Z',
        task: second.task,
        updatedAt: 2_000,
      });
      expect((await store.listA2aTasks()).total).toBe(1);
    });

    it('listA2aTasks: newest status first, ties by id descending, with the total', async () => {
      const store = context.store();
      await store.saveA2aTask(task({ id: 'b', statusTimestamp: '2026-01-01T00:00:02.000Z' }));
      await store.saveA2aTask(task({ id: 'a', statusTimestamp: '2026-01-01T00:00:03.000Z' }));
      await store.saveA2aTask(task({ id: 'c', statusTimestamp: '2026-01-01T00:00:02.000Z' }));
      await store.saveA2aTask(task({ id: 'd', statusTimestamp: '' }));
      expect(await ids(store)).toEqual({ ids: ['a', 'c', 'b', 'd'], total: 4 });
    });

    it('listA2aTasks: filters by context, states and status time, and pages after a task', async () => {
      const store = context.store();
      await store.saveA2aTask(
        task({ id: 't1', contextId: 'x', statusTimestamp: '2026-01-01T00:00:01.000Z' }),
      );
      await store.saveA2aTask(
        task({
          id: 't2',
          contextId: 'x',
          state: 'TASK_STATE_COMPLETED',
          statusTimestamp: '2026-01-01T00:00:02.000Z',
        }),
      );
      await store.saveA2aTask(
        task({ id: 't3', contextId: 'y', statusTimestamp: '2026-01-01T00:00:03.000Z' }),
      );
      await store.saveA2aTask(
        task({
          id: 't4',
          contextId: 'x',
          state: 'TASK_STATE_FAILED',
          statusTimestamp: '2026-01-01T00:00:04.000Z',
        }),
      );
      expect(await ids(store, { contextId: 'x' })).toEqual({ ids: ['t4', 't2', 't1'], total: 3 });
      expect(await ids(store, { states: ['TASK_STATE_WORKING'] })).toEqual({ ids: ['t3', 't1'], total: 2 });
      expect(await ids(store, { states: [] })).toEqual({ ids: [], total: 0 });
      expect(await ids(store, { statusTimestampAfter: '2026-01-01T00:00:02.000Z' })).toEqual({
        ids: ['t4', 't3'],
        total: 2,
      });
      const first = await ids(store, { contextId: 'x', limit: 2 });
      expect(first).toEqual({ ids: ['t4', 't2'], total: 3 });
      const rest = await ids(store, {
        contextId: 'x',
        limit: 2,
        after: { statusTimestamp: '2026-01-01T00:00:02.000Z', id: 't2' },
      });
      expect(rest).toEqual({ ids: ['t1'], total: 3 });
    });
  });

  describe('a2a push configs', () => {
    const config = (taskId: string, id: string, url: string) => ({
      taskId,
      id,
      config: { taskId, id, url, token: 'secret' },
      wireVersion: '1.0',
      now: 1_000,
    });

    it('saveA2aPushConfig: lists a task’s configs in creation order; a replaced one keeps its place', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('task-1', 'p1', 'http://one'));
      await store.saveA2aPushConfig(config('task-1', 'p2', 'http://two'));
      await store.saveA2aPushConfig(config('task-2', 'p1', 'http://other'));
      await store.saveA2aPushConfig({
        ...config('task-1', 'p1', 'http://one-again'),
        wireVersion: '0.3',
        now: 5_000,
      });
      const listed = await store.listA2aPushConfigs('task-1');
      expect(listed.map((record) => [record.id, record.config.url, record.wireVersion])).toEqual([
        ['p1', 'http://one-again', '0.3'],
        ['p2', 'http://two', '1.0'],
      ]);
      expect(listed[0]?.createdAt).toBe(1_000);
      expect(await store.listA2aPushConfigs('no-such-task')).toEqual([]);
    });

    it('deleteA2aPushConfig: deletes one config, or all of a task’s, and ignores unknown ones', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('task-1', 'p1', 'http://one'));
      await store.saveA2aPushConfig(config('task-1', 'p2', 'http://two'));
      await store.saveA2aPushConfig(config('task-2', 'p1', 'http://other'));
      await store.deleteA2aPushConfig({ taskId: 'task-1', id: 'p1' });
      await store.deleteA2aPushConfig({ taskId: 'task-1', id: 'no-such-config' });
      expect((await store.listA2aPushConfigs('task-1')).map((record) => record.id)).toEqual(['p2']);
      await store.deleteA2aPushConfig({ taskId: 'task-1' });
      expect(await store.listA2aPushConfigs('task-1')).toEqual([]);
      expect(await store.listA2aPushConfigs('task-2')).toHaveLength(1);
    });
  });
}
