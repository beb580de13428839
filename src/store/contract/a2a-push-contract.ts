import { describe, expect, it } from 'vitest';
import type { A2aStore } from '../a2a-store.js';
import type { ContractContext } from './contract-context.js';

const config = (taskId: string, id: string) => ({
  taskId,
  id,
  config: { taskId, id, url: `http://hook/${id}` },
  wireVersion: '1.0',
  now: 1_000,
});

const event = (taskId: string, eventId: string, task: Record<string, unknown> | null = null) => ({
  taskId,
  eventId,
  event: { statusUpdate: { taskId, note: eventId } },
  task,
  now: 2_000,
});

/** The pending deliveries as `config: event ids`, in the order the store gives them. */
async function pending(store: A2aStore, perConfig?: number): Promise<string[]> {
  const deliveries = await store.pendingA2aPushDeliveries(perConfig === undefined ? {} : { perConfig });
  return deliveries.map(({ config, event }) => `${config.taskId}/${config.id}:${event.eventId}#${event.seq}`);
}

export function describeA2aPushContract(context: ContractContext<A2aStore>): void {
  describe('a2a push outbox', () => {
    it('appendA2aPushEvent: numbers a task’s events 1, 2, 3; an id queued before is kept once', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('t1', 'p1'));
      expect(await store.appendA2aPushEvent(event('t1', 'e1', { id: 't1' }))).toBe(true);
      expect(await store.appendA2aPushEvent(event('t1', 'e2'))).toBe(true);
      expect(await store.appendA2aPushEvent(event('t1', 'e1'))).toBe(false);
      expect(await store.appendA2aPushEvent(event('t2', 'e1'))).toBe(true);
      const deliveries = await store.pendingA2aPushDeliveries();
      expect(deliveries.map(({ event }) => [event.eventId, event.seq])).toEqual([
        ['e1', 1],
        ['e2', 2],
      ]);
      expect(deliveries[0]).toEqual({
        config: {
          taskId: 't1',
          id: 'p1',
          config: config('t1', 'p1').config,
          wireVersion: '1.0',
          createdAt: 1_000,
        },
        event: {
          taskId: 't1',
          eventId: 'e1',
          seq: 1,
          event: { statusUpdate: { taskId: 't1', note: 'e1' } },
          task: { id: 't1' },
          createdAt: 2_000,
        },
      });
    });

    it('pendingA2aPushDeliveries: each config gets the events queued after it, in order, perConfig at a time', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('t1', 'early'));
      await store.appendA2aPushEvent(event('t1', 'e1'));
      await store.saveA2aPushConfig(config('t1', 'late'));
      await store.appendA2aPushEvent(event('t1', 'e2'));
      await store.appendA2aPushEvent(event('t1', 'e3'));
      expect(await pending(store)).toEqual([
        't1/early:e1#1',
        't1/early:e2#2',
        't1/early:e3#3',
        't1/late:e2#2',
        't1/late:e3#3',
      ]);
      expect(await pending(store, 1)).toEqual(['t1/early:e1#1', 't1/late:e2#2']);
      // Replacing a config keeps its progress.
      await store.commitA2aPushDelivery({ taskId: 't1', configId: 'early', seq: 2 });
      await store.saveA2aPushConfig({ ...config('t1', 'early'), wireVersion: '0.3' });
      expect(await pending(store, 1)).toEqual(['t1/early:e3#3', 't1/late:e2#2']);
    });

    it('commitA2aPushDelivery: committed events are no longer pending, progress never goes back', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('t1', 'p1'));
      for (const id of ['e1', 'e2', 'e3']) await store.appendA2aPushEvent(event('t1', id));
      await store.commitA2aPushDelivery({ taskId: 't1', configId: 'p1', seq: 2 });
      expect(await pending(store)).toEqual(['t1/p1:e3#3']);
      await store.commitA2aPushDelivery({ taskId: 't1', configId: 'p1', seq: 1 });
      expect(await pending(store)).toEqual(['t1/p1:e3#3']);
      await store.commitA2aPushDelivery({ taskId: 't1', configId: 'p1', seq: 3 });
      expect(await pending(store)).toEqual([]);
      // A replay of delivered events (another node's follower) queues nothing again.
      expect(await store.appendA2aPushEvent(event('t1', 'e2'))).toBe(false);
      expect(await store.appendA2aPushEvent(event('t1', 'e4'))).toBe(true);
      expect(await pending(store)).toEqual(['t1/p1:e4#4']);
    });

    it('deleteA2aPushConfig: a deleted config has nothing pending; the others keep theirs', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('t1', 'p1'));
      await store.saveA2aPushConfig(config('t1', 'p2'));
      await store.appendA2aPushEvent(event('t1', 'e1'));
      await store.deleteA2aPushConfig({ taskId: 't1', id: 'p1' });
      expect(await pending(store)).toEqual(['t1/p2:e1#1']);
      await store.deleteA2aPushConfig({ taskId: 't1' });
      expect(await pending(store)).toEqual([]);
      expect(await store.appendA2aPushEvent(event('t1', 'e1'))).toBe(false);
    });

    it('appendA2aPushEvent: racing appends to one task get the numbers 1…n, each once', async () => {
      const store = context.store();
      await store.saveA2aPushConfig(config('t1', 'p1'));
      const ids = Array.from({ length: 20 }, (_, index) => `e${index}`);
      // Every event queued twice at once, as two nodes following one task would.
      const results = await Promise.all(
        [...ids, ...ids].map((id) => store.appendA2aPushEvent(event('t1', id))),
      );
      expect(results.filter(Boolean)).toHaveLength(20);
      const deliveries = await store.pendingA2aPushDeliveries({ perConfig: 100 });
      expect(deliveries.map(({ event }) => event.seq)).toEqual(ids.map((_, index) => index + 1));
      expect(new Set(deliveries.map(({ event }) => event.eventId))).toEqual(new Set(ids));
    });
  });
}
