import { LeaseLostError } from '../../errors/agentd-error.js';
import type { AcquireLeaseOptions, LeaseRecord, LeaseStorage } from '../store.js';
import { toLeaseRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { requireSession } from './sqlite-sessions.js';

/** Session leases on SQLite: a released or expired lease keeps its row, and so its epoch. */
export function sqliteLeases(connection: SqliteConnection): LeaseStorage {
  return {
    async acquireLease(options) {
      return connection.write(() => {
        requireSession(connection, options.sessionId);
        const row = connection
          .statement('SELECT owner, epoch, expires_at FROM leases WHERE session_id = ?')
          .get(options.sessionId) as { owner: string | null; epoch: number; expires_at: number } | undefined;
        if (row !== undefined && row.owner !== null && row.expires_at > options.now) {
          return null;
        }
        if (!executionMayTakeLease(connection, options)) {
          return null;
        }
        const lease: LeaseRecord = {
          sessionId: options.sessionId,
          owner: options.owner,
          epoch: (row?.epoch ?? 0) + 1,
          expiresAt: options.now + options.ttlMs,
          pid: options.pid,
          processStartTime: options.processStartTime,
        };
        connection
          .statement(
            `INSERT INTO leases (session_id, owner, epoch, expires_at, pid, process_start_time)
           VALUES (@sessionId, @owner, @epoch, @expiresAt, @pid, @processStartTime)
           ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, epoch = excluded.epoch,
             expires_at = excluded.expires_at, pid = excluded.pid,
             process_start_time = excluded.process_start_time`,
          )
          .run(lease);
        return lease;
      });
    },

    async renewLease(options) {
      return connection.write(() => {
        const result = connection
          .statement(
            `UPDATE leases SET expires_at = @expiresAt
           WHERE session_id = @sessionId AND epoch = @epoch AND owner IS NOT NULL`,
          )
          .run({
            sessionId: options.sessionId,
            epoch: options.epoch,
            expiresAt: options.now + options.ttlMs,
          });
        return result.changes === 1;
      });
    },

    async releaseLease(options) {
      connection.write(() => {
        connection
          .statement(
            `UPDATE leases SET owner = NULL, expires_at = 0, pid = NULL, process_start_time = NULL
           WHERE session_id = @sessionId AND epoch = @epoch`,
          )
          .run({ sessionId: options.sessionId, epoch: options.epoch });
      });
    },

    async getLease(sessionId) {
      return connection.read(() => {
        const row = connection.statement('SELECT * FROM leases WHERE session_id = ?').get(sessionId);
        return row === undefined ? null : toLeaseRecord(row);
      });
    },
  };
}

/**
 * An execution takes its session's lease once, from its own process: a second process started for
 * the same execution, or one started after it ended, must not take over its session. An owner that
 * names no execution (the contract tests) is not checked.
 */
function executionMayTakeLease(connection: SqliteConnection, options: AcquireLeaseOptions): boolean {
  const execution = connection
    .statement('SELECT state, epoch, pid FROM executions WHERE id = ?')
    .get(options.owner) as { state: string; epoch: number; pid: number | null } | undefined;
  if (execution === undefined) {
    return true;
  }
  const fresh = execution.epoch === 0 && (execution.state === 'starting' || execution.state === 'stopping');
  return fresh && (execution.pid === null || execution.pid === options.pid);
}

/**
 * Refuses a fenced write with `LeaseLostError` unless `epoch` is the session's current lease epoch;
 * an unfenced write (`epoch` undefined) passes. Call inside the write's own transaction, before
 * changing anything.
 */
export function assertFence(
  connection: SqliteConnection,
  fence: { sessionId: string; epoch: number | undefined },
): void {
  if (fence.epoch === undefined) {
    return;
  }
  const row = connection
    .statement('SELECT epoch, owner FROM leases WHERE session_id = ?')
    .get(fence.sessionId) as { epoch: number; owner: string | null } | undefined;
  // A released lease keeps its epoch for the next acquisition, but nobody writes under it any more.
  if (row?.epoch !== fence.epoch || row.owner === null) {
    throw new LeaseLostError(
      `the lease on session ${fence.sessionId} is at epoch ${row?.epoch ?? 'none'}, not ${fence.epoch}: another worker owns it`,
      { sessionId: fence.sessionId, epoch: fence.epoch, currentEpoch: row?.epoch ?? null },
    );
  }
}
