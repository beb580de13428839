import { ConflictError } from '../../errors/agentd-error.js';
import type { InputStorage } from '../store.js';
import { toInputRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { appendEventsIn } from './sqlite-events.js';
import { requireExecution } from './sqlite-executions.js';
import { assertFence } from './sqlite-leases.js';
import { requireSession } from './sqlite-sessions.js';

/** The input journal on SQLite. */
export function sqliteInputs(connection: SqliteConnection): InputStorage {
  return {
    async addInput(input) {
      return connection.write(() => {
        requireSession(connection, input.sessionId);
        const row = connection
          .statement('SELECT * FROM inputs WHERE session_id = ? AND message_id = ?')
          .get(input.sessionId, input.messageId);
        if (row !== undefined) {
          const existing = toInputRecord(row);
          if (existing.text !== input.text) {
            throw new ConflictError(
              `message id ${input.messageId} was already used in session ${input.sessionId} with other text`,
              { sessionId: input.sessionId, messageId: input.messageId, inputId: existing.id },
            );
          }
          return { input: existing, created: false, events: [] };
        }
        if (connection.statement('SELECT 1 FROM inputs WHERE id = ?').get(input.id) !== undefined) {
          throw new ConflictError(`input ${input.id} already exists`, { inputId: input.id });
        }
        const dispatchTo = input.dispatch ? dispatchesTo(connection, input.sessionId, input.dispatch) : null;
        const inserted = connection
          .statement(
            `INSERT INTO inputs (id, session_id, message_id, text, state, execution_id, created_at, updated_at)
           VALUES (@id, @sessionId, @messageId, @text, @state, @executionId, @now, @now)
           RETURNING *`,
          )
          .get({
            id: input.id,
            sessionId: input.sessionId,
            messageId: input.messageId,
            text: input.text,
            state: dispatchTo ? 'dispatching' : 'accepted',
            executionId: dispatchTo,
            now: input.now,
          });
        if (dispatchTo)
          connection
            .statement(`UPDATE executions SET state = 'running', updated_at = @now WHERE id = @executionId`)
            .run({ executionId: dispatchTo, now: input.now });
        const events = input.event
          ? appendEventsIn(connection, input.sessionId, [input.event], { now: input.now })
          : [];
        return { input: toInputRecord(inserted), created: true, events };
      });
    },

    async getInput(sessionId, messageId) {
      return connection.read(() => {
        const row = connection
          .statement('SELECT * FROM inputs WHERE session_id = ? AND message_id = ?')
          .get(sessionId, messageId);
        return row === undefined ? null : toInputRecord(row);
      });
    },

    async listInputs(sessionId, options = {}) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM inputs WHERE session_id = @sessionId
             AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
           ORDER BY seq`,
          )
          .all({ sessionId, states: options.states === undefined ? null : JSON.stringify(options.states) })
          .map(toInputRecord),
      );
    },

    async updateInputStates(options) {
      return connection.write(() => {
        assertFence(connection, { sessionId: options.sessionId, epoch: options.epoch });
        const rows = connection
          .statement(
            `UPDATE inputs SET state = @to, updated_at = @now,
             execution_id = CASE WHEN @setExecution THEN @executionId ELSE execution_id END
           WHERE session_id = @sessionId
             AND id IN (SELECT value FROM json_each(@inputIds))
             AND state IN (SELECT value FROM json_each(@from))
           RETURNING *`,
          )
          .all({
            sessionId: options.sessionId,
            inputIds: JSON.stringify(options.inputIds),
            from: JSON.stringify(options.from),
            to: options.to,
            setExecution: options.executionId === undefined ? 0 : 1,
            executionId: options.executionId ?? null,
            now: options.now,
          }) as Array<{ seq: number }>;
        if (rows.length > 0 && options.events?.length)
          appendEventsIn(connection, options.sessionId, options.events, {
            epoch: options.epoch,
            now: options.now,
          });
        // RETURNING has no defined order; callers expect journal order.
        return rows.sort((left, right) => left.seq - right.seq).map(toInputRecord);
      });
    },

    async dispatchInput(options) {
      return connection.write(() => {
        assertFence(connection, { sessionId: options.sessionId, epoch: options.epoch });
        const execution = requireExecution(connection, options.executionId);
        if (execution.state !== 'idle' && execution.state !== 'running') return { execution, input: null };
        const row = connection
          .statement(
            `UPDATE inputs SET state = 'dispatching', updated_at = @now, execution_id = @executionId
           WHERE session_id = @sessionId AND id = @inputId AND state = 'accepted'
           RETURNING *`,
          )
          .get({
            sessionId: options.sessionId,
            inputId: options.inputId,
            executionId: options.executionId,
            now: options.now,
          });
        if (row === undefined) return { execution, input: null };
        connection
          .statement(`UPDATE executions SET state = 'running', updated_at = @now WHERE id = @executionId`)
          .run({ executionId: options.executionId, now: options.now });
        return { execution: requireExecution(connection, options.executionId), input: toInputRecord(row) };
      });
    },
  };
}

/**
 * The execution a new input starts its turn on, at once (`addInput`'s `dispatch`): when it is idle
 * and nothing of the session waits before the input. Fenced by the lease epoch.
 */
function dispatchesTo(
  connection: SqliteConnection,
  sessionId: string,
  dispatch: { executionId: string; epoch: number },
): string | null {
  assertFence(connection, { sessionId, epoch: dispatch.epoch });
  if (requireExecution(connection, dispatch.executionId).state !== 'idle') return null;
  const waiting = connection
    .statement(`SELECT 1 FROM inputs WHERE session_id = ? AND state IN ('accepted', 'dispatching') LIMIT 1`)
    .get(sessionId);
  return waiting === undefined ? dispatch.executionId : null;
}
