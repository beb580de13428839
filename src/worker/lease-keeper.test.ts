import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../errors/index.js';
import { createTestSession } from '../store/contract/contract-context.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { defaultQuietTtlFactor, LeaseKeeper } from './lease-keeper.js';

let directory: string;
let store: SqliteStore;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'agentd-lease-keeper-'));
  store = SqliteStore.open({ path: join(directory, 'agentd.db') });
});

afterEach(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

const identity = { pid: process.pid, processStartTime: null };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function keeper(options: { ttlMs: number; quiet: () => boolean }) {
  const session = await createTestSession(store);
  const execution = await store.createExecution({ id: 'exec-1', sessionId: session.id, now: Date.now() });
  const lease = new LeaseKeeper({ store, sessionId: session.id, executionId: execution.id, ...options });
  expect(await lease.acquire(identity)).toEqual({ taken: true, epoch: 1 });
  return { lease, sessionId: session.id };
}

describe('LeaseKeeper', () => {
  it('renewIfDue: a quiet worker gives its lease 12 times its TTL and comes round a third of that later', async () => {
    const { lease, sessionId } = await keeper({ ttlMs: 60, quiet: () => true });
    await sleep(30);
    const before = Date.now();
    await lease.renewIfDue();
    const renewed = await store.getLease(sessionId);
    expect(renewed!.expiresAt - before).toBeGreaterThanOrEqual(60 * defaultQuietTtlFactor);
    expect(lease.untilRenewalMs()).toBeGreaterThan(60 * 3);
  });

  it('renewIfDue: a busy worker keeps its TTL', async () => {
    const { lease, sessionId } = await keeper({ ttlMs: 60, quiet: () => false });
    await sleep(30);
    const before = Date.now();
    await lease.renewIfDue();
    const renewed = await store.getLease(sessionId);
    expect(renewed!.expiresAt - before).toBeLessThanOrEqual(60 + (Date.now() - before));
  });

  it('renewIfDue: a quiet lease taken over once it lapsed is refused, never renewed', async () => {
    const { lease, sessionId } = await keeper({ ttlMs: 30, quiet: () => true });
    await sleep(15);
    await lease.renewIfDue();
    const quietLease = await store.getLease(sessionId);
    // Another execution takes the session once the quiet lease lapsed, as a resume after a hang does.
    await store.createExecution({ id: 'exec-2', sessionId, now: Date.now() });
    const taken = await store.acquireLease({
      sessionId,
      owner: 'exec-2',
      ttlMs: 10_000,
      pid: process.pid,
      processStartTime: null,
      now: quietLease!.expiresAt + 1,
    });
    expect(taken?.epoch).toBe(2);
    // A timer can fire a millisecond before Date.now() has moved that far: wait past the due time.
    await sleep(lease.untilRenewalMs() + 10);
    await expect(lease.renewIfDue()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.getLease(sessionId))?.owner).toBe('exec-2');
  });
});
