import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../errors/agentd-error.js';
import type { NewEvent } from '../store.js';
import { type ContractContext, createTestSession } from './contract-context.js';

function events(count: number, type = 'agent.message'): NewEvent[] {
  return Array.from({ length: count }, (_, index) => ({ type, data: { index } }));
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

export function describeEventContract(context: ContractContext): void {
  describe('events', () => {
    it('appendEvents: returns the stored records with cursors from 1', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const stored = await store.appendEvents(
        session.id,
        [
          { type: 'execution.started', data: { pid: 1 }, executionId: 'exec-1' },
          { type: 'agent.message', data: { text: 'hi' } },
        ],
        { now: 4_000 },
      );
      expect(stored).toEqual([
        {
          sessionId: session.id,
          cursor: 1,
          type: 'execution.started',
          data: { pid: 1 },
          executionId: 'exec-1',
          createdAt: 4_000,
        },
        {
          sessionId: session.id,
          cursor: 2,
          type: 'agent.message',
          data: { text: 'hi' },
          executionId: null,
          createdAt: 4_000,
        },
      ]);
      expect(await store.readEvents(session.id)).toEqual(stored);
    });

    it('appendEvents: cursors grow by exactly 1 across appends and executions', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.appendEvents(
        session.id,
        events(3).map((event) => ({ ...event, executionId: 'exec-1' })),
        { now: 1 },
      );
      await store.appendEvents(session.id, events(1), { now: 2 });
      await store.appendEvents(
        session.id,
        events(5).map((event) => ({ ...event, executionId: 'exec-2' })),
        { now: 3 },
      );
      const all = await store.readEvents(session.id);
      expect(all.map((event) => event.cursor)).toEqual(range(1, 9));
      expect(all.map((event) => event.executionId)).toEqual([
        ...Array(3).fill('exec-1'),
        null,
        ...Array(5).fill('exec-2'),
      ]);
      expect(await store.lastCursor(session.id)).toBe(9);
    });

    it('appendEvents: an empty batch appends nothing', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.appendEvents(session.id, events(2), { now: 1 });
      expect(await store.appendEvents(session.id, [], { now: 2 })).toEqual([]);
      const [next] = await store.appendEvents(session.id, events(1), { now: 3 });
      expect(next?.cursor).toBe(3);
    });

    it('appendEvents: concurrent appends get unique cursors with no gaps', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const batches = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          store.appendEvents(session.id, events((index % 4) + 1), { now: index }),
        ),
      );
      const total = batches.reduce((sum, batch) => sum + batch.length, 0);
      // Each batch is contiguous: one transaction, one run of cursors.
      for (const batch of batches) {
        const first = batch[0]!.cursor;
        expect(batch.map((event) => event.cursor)).toEqual(range(first, first + batch.length - 1));
      }
      const cursors = batches.flat().map((event) => event.cursor);
      expect([...cursors].sort((left, right) => left - right)).toEqual(range(1, total));
      const read = await store.readEvents(session.id, { limit: total + 10 });
      expect(read.map((event) => event.cursor)).toEqual(range(1, total));
    });

    it('appendEvents: cursors of different sessions are independent', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      await store.appendEvents(first.id, events(3), { now: 1 });
      const [other] = await store.appendEvents(second.id, events(1), { now: 1 });
      expect(other?.cursor).toBe(1);
      expect(await store.lastCursor(first.id)).toBe(3);
      expect(await store.lastCursor(second.id)).toBe(1);
    });

    it('appendEvents: JSON data comes back deep-equal', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const values: unknown[] = [
        null,
        0,
        -1.5,
        'plain',
        'ünïcödé ✓ 😀 "quoted" \\ \n newline',
        [],
        [1, [2, [3]]],
        {},
        { message: { content: [{ type: 'text', text: 'x' }], usage: { input_tokens: 3 } }, flag: false },
      ];
      await store.appendEvents(
        session.id,
        values.map((data) => ({ type: 'claude.message', data })),
        { now: 1 },
      );
      expect((await store.readEvents(session.id)).map((event) => event.data)).toEqual(values);
    });

    it('appendEvents: an unknown session is NotFoundError', async () => {
      await expect(
        context.store().appendEvents('no-such-session', events(1), { now: 1 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('readEvents: returns events after the cursor, at most `limit`', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.appendEvents(session.id, events(10), { now: 1 });
      expect((await store.readEvents(session.id, { after: 4 })).map((event) => event.cursor)).toEqual(
        range(5, 10),
      );
      expect(
        (await store.readEvents(session.id, { after: 4, limit: 3 })).map((event) => event.cursor),
      ).toEqual([5, 6, 7]);
      expect(await store.readEvents(session.id, { after: 10 })).toEqual([]);
      expect(await store.readEvents(session.id, { limit: 0 })).toEqual([]);
    });

    it('readEvents: with `types`, returns only events of those types, after the cursor', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.appendEvents(session.id, events(3), { now: 1 });
      await store.appendEvents(session.id, events(2, 'monitor.observation'), { now: 1 });
      await store.appendEvents(session.id, events(2), { now: 1 });
      await store.appendEvents(session.id, events(1, 'input.accepted'), { now: 1 });
      const types = ['monitor.observation', 'input.accepted'];
      expect((await store.readEvents(session.id, { types })).map((event) => event.cursor)).toEqual([4, 5, 8]);
      expect(
        (await store.readEvents(session.id, { after: 4, types, limit: 1 })).map((event) => event.cursor),
      ).toEqual([5]);
      expect(await store.readEvents(session.id, { types: [] })).toEqual([]);
    });

    it('readEvents: returns at most 1000 events by default', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.appendEvents(session.id, events(1_005), { now: 1 });
      const page = await store.readEvents(session.id);
      expect(page).toHaveLength(1_000);
      expect(page.at(-1)?.cursor).toBe(1_000);
      expect((await store.readEvents(session.id, { after: 1_000 })).map((event) => event.cursor)).toEqual(
        range(1_001, 1_005),
      );
    });

    it('readEvents and lastCursor: a session without events gives [] and 0', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      expect(await store.readEvents(session.id)).toEqual([]);
      expect(await store.lastCursor(session.id)).toBe(0);
      expect(await store.lastCursor('no-such-session')).toBe(0);
    });

    it('appendEvents: the costUsd of agent.turn.completed events adds to the session’s costUsd', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const other = await createTestSession(store);
      await store.appendEvents(
        session.id,
        [
          { type: 'agent.turn.completed', data: { costUsd: 0.125, numTurns: 1 } },
          // Only completed turns count, and only a numeric costUsd.
          { type: 'agent.message', data: { costUsd: 5 } },
          { type: 'agent.turn.completed', data: { costUsd: 'free' } },
          { type: 'agent.turn.completed', data: null },
          { type: 'agent.turn.completed', data: { costUsd: 0.25 } },
        ],
        { now: 1 },
      );
      expect((await store.getSession(session.id))?.costUsd).toBeCloseTo(0.375);
      await store.appendEvents(session.id, [{ type: 'agent.turn.completed', data: { costUsd: 1 } }], {
        now: 2,
      });
      expect((await store.getSession(session.id))?.costUsd).toBeCloseTo(1.375);
      expect((await store.getSession(other.id))?.costUsd).toBe(0);
    });

    it('appendEvents: a refused (fenced) append adds no cost', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const lease = await store.acquireLease({
        sessionId: session.id,
        owner: 'worker-1',
        ttlMs: 10_000,
        pid: null,
        processStartTime: null,
        now: 1,
      });
      await expect(
        store.appendEvents(session.id, [{ type: 'agent.turn.completed', data: { costUsd: 2 } }], {
          epoch: (lease?.epoch ?? 0) + 1,
          now: 2,
        }),
      ).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await store.getSession(session.id))?.costUsd).toBe(0);
      expect(await store.lastCursor(session.id)).toBe(0);
    });

    it('readEventsAcross: every session past its own cursor (unlisted ones from the start), by session then cursor', async () => {
      const store = context.store();
      const [a, b, c] = [
        await createTestSession(store, { id: 'across-a' }),
        await createTestSession(store, { id: 'across-b' }),
        await createTestSession(store, { id: 'across-c' }),
      ];
      await store.appendEvents(a.id, events(3), { now: 1 });
      await store.appendEvents(b.id, events(2), { now: 1 });
      await store.createSession({ id: 'across-d', provider: 'claude', cwd: '/p', config: {}, now: 1 });
      const position = (list: Awaited<ReturnType<typeof store.readEventsAcross>>) =>
        list.map((event) => `${event.sessionId}#${event.cursor}`);
      expect(position(await store.readEventsAcross({ after: new Map([[a.id, 1]]) }))).toEqual([
        'across-a#2',
        'across-a#3',
        'across-b#1',
        'across-b#2',
      ]);
      await store.appendEvents(c.id, events(1), { now: 1 });
      await store.appendEvents(a.id, events(1), { now: 1 });
      const after = new Map([
        [a.id, 3],
        [b.id, 2],
      ]);
      const tail = await store.readEventsAcross({ after });
      expect(position(tail)).toEqual(['across-a#4', 'across-c#1']);
      expect(tail[0]).toMatchObject({ type: 'agent.message', data: { index: 0 }, createdAt: 1 });
      expect(position(await store.readEventsAcross({ after, limit: 1 }))).toEqual(['across-a#4']);
      expect(
        await store.readEventsAcross({
          after: new Map([
            [a.id, 4],
            [b.id, 2],
            [c.id, 1],
          ]),
        }),
      ).toEqual([]);
    });

    it('lastCursors: every session’s last cursor, 0 without events', async () => {
      const store = context.store();
      const a = await createTestSession(store);
      const b = await createTestSession(store);
      await store.appendEvents(a.id, events(3), { now: 1 });
      const cursors = await store.lastCursors();
      expect([cursors.get(a.id), cursors.get(b.id)]).toEqual([3, 0]);
    });
  });
}
