import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../errors/agentd-error.js';
import type { AcquireLeaseOptions } from '../store.js';
import { type ContractContext, createTestSession } from './contract-context.js';

function acquisition(sessionId: string, overrides: Partial<AcquireLeaseOptions> = {}): AcquireLeaseOptions {
  return {
    sessionId,
    owner: 'worker-a',
    ttlMs: 10_000,
    pid: 4242,
    processStartTime: '123456',
    now: 1_000,
    ...overrides,
  };
}

export function describeLeaseContract(context: ContractContext): void {
  describe('leases', () => {
    it('acquireLease: the first acquisition gets epoch 1 and getLease returns it', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      expect(await store.getLease(session.id)).toBeNull();
      const lease = await store.acquireLease(acquisition(session.id));
      expect(lease).toEqual({
        sessionId: session.id,
        owner: 'worker-a',
        epoch: 1,
        expiresAt: 11_000,
        pid: 4242,
        processStartTime: '123456',
      });
      expect(await store.getLease(session.id)).toEqual(lease);
    });

    it('acquireLease: a live lease is not taken, not even by its own owner', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const lease = await store.acquireLease(acquisition(session.id));
      expect(
        await store.acquireLease(acquisition(session.id, { owner: 'worker-b', now: 10_999 })),
      ).toBeNull();
      expect(await store.acquireLease(acquisition(session.id, { now: 5_000 }))).toBeNull();
      expect(await store.getLease(session.id)).toEqual(lease);
    });

    it('acquireLease: an expired lease is taken over with the next epoch', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.acquireLease(acquisition(session.id));
      // expiresAt is 11_000: at that instant the lease is over.
      const takeover = await store.acquireLease(
        acquisition(session.id, { owner: 'worker-b', pid: 99, processStartTime: null, now: 11_000 }),
      );
      expect(takeover).toEqual({
        sessionId: session.id,
        owner: 'worker-b',
        epoch: 2,
        expiresAt: 21_000,
        pid: 99,
        processStartTime: null,
      });
      expect(await store.getLease(session.id)).toEqual(takeover);
    });

    it('acquireLease: of many racing callers exactly one wins', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          store.acquireLease(acquisition(session.id, { owner: `w${index}` })),
        ),
      );
      const winners = results.filter((lease) => lease !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.epoch).toBe(1);
      expect((await store.getLease(session.id))?.owner).toBe(winners[0]?.owner);
    });

    it('acquireLease: an execution takes its lease once, from its own process', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const execution = await store.createExecution({ id: 'exec-once', sessionId: session.id, now: 1 });
      await store.updateExecution(execution.id, { pid: 4242, now: 1 });
      const owner = { owner: execution.id, pid: 4242 };
      expect(await store.acquireLease(acquisition(session.id, { ...owner, pid: 999 }))).toBeNull();
      const lease = await store.acquireLease(acquisition(session.id, owner));
      expect(lease?.epoch).toBe(1);
      await store.updateExecution(execution.id, { state: 'idle', epoch: 1, now: 2 }, { epoch: 1 });
      await store.releaseLease({ sessionId: session.id, epoch: 1 });
      // The lease is free, but this execution already held it: a second process of it gets nothing.
      expect(await store.acquireLease(acquisition(session.id, { ...owner, now: 5_000 }))).toBeNull();
      expect((await store.getLease(session.id))?.owner ?? null).toBeNull();
    });

    it('acquireLease: an unknown session is NotFoundError', async () => {
      await expect(context.store().acquireLease(acquisition('no-such-session'))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('renewLease: the current epoch extends the expiry', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const lease = await store.acquireLease(acquisition(session.id));
      const renewed = await store.renewLease({ sessionId: session.id, epoch: 1, ttlMs: 10_000, now: 9_000 });
      expect(renewed).toBe(true);
      expect(await store.getLease(session.id)).toEqual({ ...lease, expiresAt: 19_000 });
      // Renewed past its first expiry, so nobody can take it at 15_000.
      expect(
        await store.acquireLease(acquisition(session.id, { owner: 'worker-b', now: 15_000 })),
      ).toBeNull();
    });

    it('renewLease: a stale epoch returns false and changes nothing', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.acquireLease(acquisition(session.id));
      const takeover = await store.acquireLease(acquisition(session.id, { owner: 'worker-b', now: 20_000 }));
      const renewed = await store.renewLease({ sessionId: session.id, epoch: 1, ttlMs: 60_000, now: 20_001 });
      expect(renewed).toBe(false);
      expect(await store.getLease(session.id)).toEqual(takeover);
    });

    it('releaseLease: drops the lease; the next acquisition gets a higher epoch', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.acquireLease(acquisition(session.id));
      await store.releaseLease({ sessionId: session.id, epoch: 1 });
      expect(await store.getLease(session.id)).toBeNull();
      expect(await store.renewLease({ sessionId: session.id, epoch: 1, ttlMs: 1_000, now: 1_500 })).toBe(
        false,
      );
      // Still well before the old expiry: release, not time, freed it.
      const next = await store.acquireLease(acquisition(session.id, { owner: 'worker-b', now: 2_000 }));
      expect(next?.epoch).toBe(2);
      await store.releaseLease({ sessionId: session.id, epoch: 2 });
      expect((await store.acquireLease(acquisition(session.id, { now: 3_000 })))?.epoch).toBe(3);
    });

    it('releaseLease: a stale epoch is a no-op', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await store.acquireLease(acquisition(session.id));
      const takeover = await store.acquireLease(acquisition(session.id, { owner: 'worker-b', now: 50_000 }));
      await store.releaseLease({ sessionId: session.id, epoch: 1 });
      expect(await store.getLease(session.id)).toEqual(takeover);
    });

    it('acquireLease: leases of different sessions are independent', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      expect((await store.acquireLease(acquisition(first.id)))?.epoch).toBe(1);
      expect((await store.acquireLease(acquisition(second.id)))?.epoch).toBe(1);
    });
  });
}
