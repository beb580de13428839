import { NotFoundError } from '../../errors/agentd-error.js';
import { toEventRecord } from '../sqlite/rows.js';
import type { EventRecord, EventStorage, NewEvent } from '../store.js';
import { turnCost } from '../turn-cost.js';
import { anyWebhookEvent } from '../webhook-storage.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { assertFence } from './postgres-leases.js';
import { queuePostgresDeliveries } from './postgres-webhooks.js';

/**
 * The event journal on PostgreSQL. Cursors come from the session's own counter, bumped under the
 * session row's lock in the appending transaction (never from a global sequence): a rollback leaves
 * no gap, and the (session_id, cursor) primary key refuses any duplicate.
 */
export function postgresEvents(
  connection: PostgresConnection,
  onAppended: (sessionId: string) => void,
): EventStorage {
  return {
    async appendEvents(sessionId, events, options) {
      const records = await connection.write((executor) =>
        appendEventsWith(executor, sessionId, events, options),
      );
      if (records.length > 0) {
        onAppended(sessionId);
      }
      return records;
    },

    async readEvents(sessionId, options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM events WHERE session_id = $1 AND cursor > $2
             AND ($4::text[] IS NULL OR type = ANY($4::text[])) ORDER BY cursor LIMIT $3`,
            [sessionId, options.after ?? 0, Math.max(0, options.limit ?? 1000), options.types ?? null],
          )
        ).map(toEventRecord),
      );
    },

    async lastCursor(sessionId) {
      return connection.read(async (executor) => {
        const row = (await executor.row('SELECT last_cursor FROM sessions WHERE id = $1', [sessionId])) as
          | { last_cursor: number }
          | undefined;
        return row?.last_cursor ?? 0;
      });
    },

    async readEventsAcross(options) {
      const ids = [...options.after.keys()];
      const cursors = ids.map((id) => options.after.get(id) ?? 0);
      // Sessions whose counter is past their position are the only ones read, each by its index range.
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT e.* FROM sessions s
               LEFT JOIN unnest($1::text[], $2::bigint[]) AS p(session_id, cursor) ON p.session_id = s.id
               JOIN events e ON e.session_id = s.id AND e.cursor > coalesce(p.cursor, 0)
              WHERE s.last_cursor > coalesce(p.cursor, 0)
              ORDER BY e.session_id, e.cursor LIMIT $3`,
            [ids, cursors, Math.max(0, options.limit ?? 1000)],
          )
        ).map(toEventRecord),
      );
    },

    async lastCursors() {
      return connection.read(async (executor) => {
        const rows = (await executor.rows('SELECT id, last_cursor FROM sessions')) as Array<{
          id: string;
          last_cursor: number;
        }>;
        return new Map(rows.map((row) => [row.id, row.last_cursor]));
      });
    },
  };
}

/**
 * Appends events inside the caller's transaction, fenced by `epoch` when given: the one
 * implementation behind `appendEvents` and the writes that journal an event with their own change.
 */
export async function appendEventsWith(
  executor: PostgresExecutor,
  sessionId: string,
  events: NewEvent[],
  options: { epoch?: number; now: number },
): Promise<EventRecord[]> {
  await assertFence(executor, { sessionId, epoch: options.epoch });
  const cost = turnCost(events);
  const bumped = (await executor.row(
    `UPDATE sessions SET last_cursor = last_cursor + $2, cost_usd = cost_usd + $3
       WHERE id = $1 RETURNING last_cursor`,
    [sessionId, events.length, cost],
  )) as { last_cursor: number } | undefined;
  if (bumped === undefined) {
    throw new NotFoundError(`session ${sessionId} does not exist`, { sessionId });
  }
  const first = bumped.last_cursor - events.length + 1;
  const rows = events.map((event, index) => ({
    cursor: first + index,
    type: event.type,
    data: JSON.stringify(event.data) ?? 'null',
    executionId: event.executionId ?? null,
  }));
  if (rows.length > 0) {
    // One statement for the whole batch: unnest the columns as arrays.
    await executor.run(
      `INSERT INTO events (session_id, cursor, type, data, execution_id, created_at)
         SELECT $1, cursor, type, data, execution_id, $6
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS e(cursor, type, data, execution_id)`,
      [
        sessionId,
        rows.map((row) => row.cursor),
        rows.map((row) => row.type),
        rows.map((row) => row.data),
        rows.map((row) => row.executionId),
        options.now,
      ],
    );
  }
  // Webhook deliveries are queued in the transaction that journals their events.
  if (anyWebhookEvent(rows)) await queuePostgresDeliveries(executor, sessionId, rows, options.now);
  // Hand back what a read will return (a JSON round trip), not the caller's own object.
  return rows.map(
    (row): EventRecord => ({
      sessionId,
      cursor: row.cursor,
      type: row.type,
      data: JSON.parse(row.data),
      executionId: row.executionId,
      createdAt: options.now,
    }),
  );
}
