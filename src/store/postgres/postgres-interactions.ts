import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { toInteractionRecord } from '../sqlite/rows.js';
import type { InteractionStorage } from '../store.js';
import type { PostgresConnection } from './postgres-connection.js';
import { assertFence } from './postgres-leases.js';
import { requireSession } from './postgres-sessions.js';

/** Approvals and questions on PostgreSQL. */
export function postgresInteractions(
  connection: PostgresConnection,
  onAnswered: (sessionId: string) => void,
): InteractionStorage {
  return {
    async createInteraction(interaction, fence) {
      return connection.write(async (executor) => {
        await assertFence(executor, { sessionId: interaction.sessionId, epoch: fence?.epoch });
        const existing = await executor.row('SELECT * FROM interactions WHERE id = $1', [interaction.id]);
        if (existing !== undefined) {
          return toInteractionRecord(existing);
        }
        await requireSession(executor, interaction.sessionId);
        const inserted = await executor.row(
          `INSERT INTO interactions
             (id, session_id, execution_id, kind, tool_name, tool_use_id, request, state, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8) RETURNING *`,
          [
            interaction.id,
            interaction.sessionId,
            interaction.executionId,
            interaction.kind,
            interaction.toolName,
            interaction.toolUseId,
            JSON.stringify(interaction.request),
            interaction.createdAt,
          ],
        );
        return toInteractionRecord(inserted);
      });
    },

    async getInteraction(id) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM interactions WHERE id = $1', [id]);
        return row === undefined ? null : toInteractionRecord(row);
      });
    },

    async listInteractions(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM interactions
             WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text IS NULL OR state = $2)
             ORDER BY seq`,
            [options.sessionId ?? null, options.state ?? null],
          )
        ).map(toInteractionRecord),
      );
    },

    async answerInteraction(id, answer, now) {
      const answered = await connection.write(async (executor) => {
        const row = await executor.row('SELECT * FROM interactions WHERE id = $1 FOR UPDATE', [id]);
        if (row === undefined) {
          throw new NotFoundError(`interaction ${id} does not exist`, { interactionId: id });
        }
        const current = toInteractionRecord(row);
        if (current.state !== 'pending') {
          throw new ConflictError(`interaction ${id} was already answered`, {
            interactionId: id,
            answeredAt: current.answeredAt,
          });
        }
        const updated = await executor.row(
          `UPDATE interactions SET state = 'answered', answer = $2, answered_at = $3 WHERE id = $1 RETURNING *`,
          [id, JSON.stringify(answer), now],
        );
        return toInteractionRecord(updated);
      });
      onAnswered(answered.sessionId);
      return answered;
    },
  };
}
