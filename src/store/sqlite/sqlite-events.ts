import { NotFoundError } from '../../errors/agentd-error.js';
import type { EventRecord, EventStorage, NewEvent } from '../store.js';
import { turnCost } from '../turn-cost.js';
import { anyWebhookEvent } from '../webhook-storage.js';
import { toEventRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { assertFence } from './sqlite-leases.js';
import { queueSqliteDeliveries } from './sqlite-webhooks.js';

/** The event journal on SQLite. */
export function sqliteEvents(connection: SqliteConnection): EventStorage {
  return {
    async appendEvents(sessionId, events, options) {
      return connection.write(() => appendEventsIn(connection, sessionId, events, options));
    },

    async readEvents(sessionId, options = {}) {
      return connection.read(() =>
        connection
          .statement(
            // One placeholder per type (a statement per count, prepared once): cheaper than json_each.
            `SELECT * FROM events WHERE session_id = ? AND cursor > ?${
              options.types === undefined ? '' : ` AND type IN (${options.types.map(() => '?').join(', ')})`
            } ORDER BY cursor LIMIT ?`,
          )
          .all(sessionId, options.after ?? 0, ...(options.types ?? []), Math.max(0, options.limit ?? 1000))
          .map(toEventRecord),
      );
    },

    async lastCursor(sessionId) {
      return connection.read(() => {
        const row = connection.statement('SELECT last_cursor FROM sessions WHERE id = ?').get(sessionId) as
          | { last_cursor: number }
          | undefined;
        return row?.last_cursor ?? 0;
      });
    },

    async readEventsAcross(options) {
      const positions = JSON.stringify([...options.after]);
      // Sessions whose counter is past their position are the only ones read, each by its index range.
      return connection.read(() =>
        connection
          .statement(
            `WITH p (session_id, cursor) AS MATERIALIZED (
               SELECT value ->> 0, value ->> 1 FROM json_each(@positions))
             SELECT e.* FROM sessions s
               LEFT JOIN p ON p.session_id = s.id
               JOIN events e ON e.session_id = s.id AND e.cursor > coalesce(p.cursor, 0)
              WHERE s.last_cursor > coalesce(p.cursor, 0)
              ORDER BY e.session_id, e.cursor LIMIT @limit`,
          )
          .all({ positions, limit: Math.max(0, options.limit ?? 1000) })
          .map(toEventRecord),
      );
    },

    async lastCursors() {
      return connection.read(() => {
        const rows = connection.statement('SELECT id, last_cursor FROM sessions').all() as Array<{
          id: string;
          last_cursor: number;
        }>;
        return new Map(rows.map((row) => [row.id, row.last_cursor]));
      });
    },
  };
}

/**
 * Appends events inside the caller's write transaction, fenced by `epoch` when given: the one
 * implementation behind `appendEvents` and the writes that journal an event with their own change.
 */
export function appendEventsIn(
  connection: SqliteConnection,
  sessionId: string,
  events: NewEvent[],
  options: { epoch?: number; now: number },
): EventRecord[] {
  assertFence(connection, { sessionId, epoch: options.epoch });
  // The session's counter is bumped under the IMMEDIATE transaction's write lock: no other writer,
  // in this process or another, can take the same cursors, and a rollback leaves no gap.
  const bumped = connection
    .statement('UPDATE sessions SET last_cursor = last_cursor + ? WHERE id = ? RETURNING last_cursor')
    .get(events.length, sessionId) as { last_cursor: number } | undefined;
  if (bumped === undefined) {
    throw new NotFoundError(`session ${sessionId} does not exist`, { sessionId });
  }
  const cost = turnCost(events);
  if (cost !== 0) {
    connection.statement('UPDATE sessions SET cost_usd = cost_usd + ? WHERE id = ?').run(cost, sessionId);
  }
  const insert = connection.statement(
    `INSERT INTO events (session_id, cursor, type, data, execution_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  let cursor = bumped.last_cursor - events.length;
  const records = events.map((event): EventRecord => {
    cursor += 1;
    const data = JSON.stringify(event.data) ?? 'null';
    const executionId = event.executionId ?? null;
    insert.run(sessionId, cursor, event.type, data, executionId, options.now);
    // Hand back what a read will return (a JSON round trip), not the caller's own object.
    return {
      sessionId,
      cursor,
      type: event.type,
      data: JSON.parse(data),
      executionId,
      createdAt: options.now,
    };
  });
  // Webhook deliveries are queued in the transaction that journals their events.
  if (anyWebhookEvent(events))
    queueSqliteDeliveries(
      connection,
      sessionId,
      records.map((record) => ({
        cursor: record.cursor,
        type: record.type,
        data: JSON.stringify(record.data),
      })),
      options.now,
    );
  return records;
}
