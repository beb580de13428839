import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { InteractionStorage } from '../store.js';
import { toInteractionRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { assertFence } from './sqlite-leases.js';
import { requireSession } from './sqlite-sessions.js';

/** Approvals and questions on SQLite. */
export function sqliteInteractions(connection: SqliteConnection): InteractionStorage {
  return {
    async createInteraction(interaction, fence) {
      return connection.write(() => {
        assertFence(connection, { sessionId: interaction.sessionId, epoch: fence?.epoch });
        const existing = connection.statement('SELECT * FROM interactions WHERE id = ?').get(interaction.id);
        if (existing !== undefined) {
          return toInteractionRecord(existing);
        }
        requireSession(connection, interaction.sessionId);
        const inserted = connection
          .statement(
            `INSERT INTO interactions
             (id, session_id, execution_id, kind, tool_name, tool_use_id, request, state, created_at)
           VALUES (@id, @sessionId, @executionId, @kind, @toolName, @toolUseId, @request, 'pending', @createdAt)
           RETURNING *`,
          )
          .get({
            id: interaction.id,
            sessionId: interaction.sessionId,
            executionId: interaction.executionId,
            kind: interaction.kind,
            toolName: interaction.toolName,
            toolUseId: interaction.toolUseId,
            request: JSON.stringify(interaction.request),
            createdAt: interaction.createdAt,
          });
        return toInteractionRecord(inserted);
      });
    },

    async getInteraction(id) {
      return connection.read(() => {
        const row = connection.statement('SELECT * FROM interactions WHERE id = ?').get(id);
        return row === undefined ? null : toInteractionRecord(row);
      });
    },

    async listInteractions(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM interactions
           WHERE (@sessionId IS NULL OR session_id = @sessionId) AND (@state IS NULL OR state = @state)
           ORDER BY seq`,
          )
          .all({ sessionId: options.sessionId ?? null, state: options.state ?? null })
          .map(toInteractionRecord),
      );
    },

    async answerInteraction(id, answer, now) {
      return connection.write(() => {
        const row = connection.statement('SELECT * FROM interactions WHERE id = ?').get(id);
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
        const updated = connection
          .statement(
            `UPDATE interactions SET state = 'answered', answer = @answer, answered_at = @now
           WHERE id = @id RETURNING *`,
          )
          .get({ id, answer: JSON.stringify(answer), now });
        return toInteractionRecord(updated);
      });
    },
  };
}
