import { LeaseLostError } from '../../errors/agentd-error.js';
import { toLeaseRecord } from '../sqlite/rows.js';
import type { AcquireLeaseOptions, LeaseRecord, LeaseStorage } from '../store.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { requireSession } from './postgres-sessions.js';

/**
 * Whose clock lease times come from. `database`: the server's `clock_timestamp()`, the one clock
 * every node shares, so a node whose clock runs fast cannot take a live lease early and one whose
 * clock runs slow cannot keep a lapsed one; the callers' `now` is ignored for leases. `caller`: the
 * `now` each call passes, as SQLite does (the store contract passes every time explicitly).
 */
export type LeaseClock = 'database' | 'caller';

/** Session leases on PostgreSQL: a released or expired lease keeps its row, and so its epoch. */
export function postgresLeases(connection: PostgresConnection, clock: LeaseClock): LeaseStorage {
  return {
    async acquireLease(options) {
      return connection.write(async (executor) => {
        await requireSession(executor, options.sessionId);
        // The row exists from the first acquisition on; the placeholder (epoch 0, no owner) lets the
        // racers of the very first one queue on the same row lock.
        await executor.run(
          `INSERT INTO leases (session_id, owner, epoch, expires_at) VALUES ($1, NULL, 0, 0)
           ON CONFLICT (session_id) DO NOTHING`,
          [options.sessionId],
        );
        const row = (await executor.row(
          `SELECT owner, epoch, expires_at, ${nowSql(clock, 2)} AS now FROM leases
           WHERE session_id = $1 FOR UPDATE`,
          [options.sessionId, options.now],
        )) as { owner: string | null; epoch: number; expires_at: number; now: number };
        if (row.owner !== null && row.expires_at > row.now) {
          return null;
        }
        if (!(await executionMayTakeLease(executor, options))) {
          return null;
        }
        const lease: LeaseRecord = {
          sessionId: options.sessionId,
          owner: options.owner,
          epoch: row.epoch + 1,
          expiresAt: row.now + options.ttlMs,
          pid: options.pid,
          processStartTime: options.processStartTime,
        };
        await executor.run(
          `UPDATE leases SET owner = $2, epoch = $3, expires_at = $4, pid = $5, process_start_time = $6
           WHERE session_id = $1`,
          [lease.sessionId, lease.owner, lease.epoch, lease.expiresAt, lease.pid, lease.processStartTime],
        );
        return lease;
      });
    },

    async renewLease(options) {
      return connection.write(async (executor) => {
        const changed = await executor.run(
          `UPDATE leases SET expires_at = ${nowSql(clock, 3)} + $4
           WHERE session_id = $1 AND epoch = $2 AND owner IS NOT NULL`,
          [options.sessionId, options.epoch, options.now, options.ttlMs],
        );
        return changed === 1;
      });
    },

    async releaseLease(options) {
      await connection.write(async (executor) => {
        await executor.run(
          `UPDATE leases SET owner = NULL, expires_at = 0, pid = NULL, process_start_time = NULL
           WHERE session_id = $1 AND epoch = $2`,
          [options.sessionId, options.epoch],
        );
      });
    },

    async getLease(sessionId) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM leases WHERE session_id = $1', [sessionId]);
        return row === undefined ? null : toLeaseRecord(row);
      });
    },
  };
}

/** The SQL for "now" in epoch milliseconds: the server's clock, or parameter `$index`. */
function nowSql(clock: LeaseClock, index: number): string {
  return clock === 'database'
    ? `(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + 0 * $${index}::bigint)`
    : `$${index}::bigint`;
}

/**
 * An execution takes its session's lease once, from its own process (see the SQLite store). An owner
 * that names no execution (the contract tests) is not checked.
 */
async function executionMayTakeLease(
  executor: PostgresExecutor,
  options: AcquireLeaseOptions,
): Promise<boolean> {
  const execution = (await executor.row('SELECT state, epoch, pid FROM executions WHERE id = $1', [
    options.owner,
  ])) as { state: string; epoch: number; pid: number | null } | undefined;
  if (execution === undefined) {
    return true;
  }
  const fresh = execution.epoch === 0 && (execution.state === 'starting' || execution.state === 'stopping');
  return fresh && (execution.pid === null || execution.pid === options.pid);
}

/**
 * Refuses a fenced write with `LeaseLostError` unless `epoch` is the session's current lease epoch;
 * an unfenced write (`epoch` undefined) passes. The lease row stays share-locked until the write
 * commits, so no acquisition can slip in between the check and the write. Call first in the
 * write's own transaction.
 */
export async function assertFence(
  executor: PostgresExecutor,
  fence: { sessionId: string; epoch: number | undefined },
): Promise<void> {
  if (fence.epoch === undefined) {
    return;
  }
  const row = (await executor.row('SELECT epoch, owner FROM leases WHERE session_id = $1 FOR SHARE', [
    fence.sessionId,
  ])) as { epoch: number; owner: string | null } | undefined;
  if (row?.epoch !== fence.epoch || row.owner === null) {
    throw new LeaseLostError(
      `the lease on session ${fence.sessionId} is at epoch ${row?.epoch ?? 'none'}, not ${fence.epoch}: another worker owns it`,
      { sessionId: fence.sessionId, epoch: fence.epoch, currentEpoch: row?.epoch ?? null },
    );
  }
}
