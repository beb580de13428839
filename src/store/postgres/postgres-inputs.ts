import { ConflictError } from '../../errors/agentd-error.js';
import { toInputRecord } from '../sqlite/rows.js';
import type { InputStorage } from '../store.js';
import type { PostgresConnection } from './postgres-connection.js';
import { assertFence } from './postgres-leases.js';
import { requireSession } from './postgres-sessions.js';

/** The input journal on PostgreSQL. */
export function postgresInputs(
  connection: PostgresConnection,
  onAdded: (sessionId: string) => void,
): InputStorage {
  return {
    async addInput(input) {
      const result = await connection.write(async (executor) => {
        await requireSession(executor, input.sessionId);
        const row = await executor.row('SELECT * FROM inputs WHERE session_id = $1 AND message_id = $2', [
          input.sessionId,
          input.messageId,
        ]);
        if (row !== undefined) {
          const existing = toInputRecord(row);
          if (existing.text !== input.text) {
            throw new ConflictError(
              `message id ${input.messageId} was already used in session ${input.sessionId} with other text`,
              { sessionId: input.sessionId, messageId: input.messageId, inputId: existing.id },
            );
          }
          return { input: existing, created: false };
        }
        if ((await executor.row('SELECT 1 FROM inputs WHERE id = $1', [input.id])) !== undefined) {
          throw new ConflictError(`input ${input.id} already exists`, { inputId: input.id });
        }
        const inserted = await executor.row(
          `INSERT INTO inputs (id, session_id, message_id, text, state, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'accepted', $5, $5) RETURNING *`,
          [input.id, input.sessionId, input.messageId, input.text, input.now],
        );
        return { input: toInputRecord(inserted), created: true };
      });
      if (result.created) {
        onAdded(input.sessionId);
      }
      return result;
    },

    async getInput(sessionId, messageId) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM inputs WHERE session_id = $1 AND message_id = $2', [
          sessionId,
          messageId,
        ]);
        return row === undefined ? null : toInputRecord(row);
      });
    },

    async listInputs(sessionId, options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM inputs WHERE session_id = $1 AND ($2::text[] IS NULL OR state = ANY($2::text[]))
             ORDER BY seq`,
            [sessionId, options.states ?? null],
          )
        ).map(toInputRecord),
      );
    },

    async updateInputStates(options) {
      return connection.write(async (executor) => {
        await assertFence(executor, { sessionId: options.sessionId, epoch: options.epoch });
        const rows = await executor.rows(
          `UPDATE inputs SET state = $4, updated_at = $7,
             execution_id = CASE WHEN $5::boolean THEN $6 ELSE execution_id END
           WHERE session_id = $1 AND id = ANY($2::text[]) AND state = ANY($3::text[])
           RETURNING *`,
          [
            options.sessionId,
            options.inputIds,
            options.from,
            options.to,
            options.executionId !== undefined,
            options.executionId ?? null,
            options.now,
          ],
        );
        // RETURNING has no defined order; callers expect journal order.
        return rows.sort((left, right) => Number(left.seq) - Number(right.seq)).map(toInputRecord);
      });
    },
  };
}
