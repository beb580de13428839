import { ConflictError } from '../../errors/agentd-error.js';
import { toInputRecord } from '../sqlite/rows.js';
import type { EventRecord, InputStorage } from '../store.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { appendEventsWith } from './postgres-events.js';
import { requireExecution } from './postgres-executions.js';
import { assertFence } from './postgres-leases.js';
import { requireSession } from './postgres-sessions.js';

/** The input journal on PostgreSQL. */
export function postgresInputs(
  connection: PostgresConnection,
  onAdded: (sessionId: string) => void,
  onAppended: (sessionId: string) => void,
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
          return { input: existing, created: false, events: [] as EventRecord[] };
        }
        if ((await executor.row('SELECT 1 FROM inputs WHERE id = $1', [input.id])) !== undefined) {
          throw new ConflictError(`input ${input.id} already exists`, { inputId: input.id });
        }
        const dispatchTo = input.dispatch
          ? await dispatchesTo(executor, input.sessionId, input.dispatch)
          : null;
        const inserted = await executor.row(
          `INSERT INTO inputs (id, session_id, message_id, text, state, execution_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
          [
            input.id,
            input.sessionId,
            input.messageId,
            input.text,
            dispatchTo ? 'dispatching' : 'accepted',
            dispatchTo,
            input.now,
          ],
        );
        if (dispatchTo)
          await executor.run(`UPDATE executions SET state = 'running', updated_at = $2 WHERE id = $1`, [
            dispatchTo,
            input.now,
          ]);
        const events = input.event
          ? await appendEventsWith(executor, input.sessionId, [input.event], { now: input.now })
          : [];
        return { input: toInputRecord(inserted), created: true, events };
      });
      if (result.created) {
        onAdded(input.sessionId);
      }
      if (result.events.length > 0) onAppended(input.sessionId);
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
      const changed = await connection.write(async (executor) => {
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
        if (rows.length > 0 && options.events?.length)
          await appendEventsWith(executor, options.sessionId, options.events, {
            epoch: options.epoch,
            now: options.now,
          });
        // RETURNING has no defined order; callers expect journal order.
        return rows.sort((left, right) => Number(left.seq) - Number(right.seq)).map(toInputRecord);
      });
      if (changed.length > 0 && options.events?.length) onAppended(options.sessionId);
      return changed;
    },

    async dispatchInput(options) {
      return connection.write(async (executor) => {
        await assertFence(executor, { sessionId: options.sessionId, epoch: options.epoch });
        const execution = await requireExecution(executor, options.executionId);
        if (execution.state !== 'idle' && execution.state !== 'running') return { execution, input: null };
        const row = await executor.row(
          `UPDATE inputs SET state = 'dispatching', updated_at = $4, execution_id = $3
           WHERE session_id = $1 AND id = $2 AND state = 'accepted'
           RETURNING *`,
          [options.sessionId, options.inputId, options.executionId, options.now],
        );
        if (row === undefined) return { execution, input: null };
        await executor.run(`UPDATE executions SET state = 'running', updated_at = $2 WHERE id = $1`, [
          options.executionId,
          options.now,
        ]);
        return {
          execution: await requireExecution(executor, options.executionId),
          input: toInputRecord(row),
        };
      });
    },
  };
}

/**
 * The execution a new input starts its turn on, at once (`addInput`'s `dispatch`): when it is idle
 * and nothing of the session waits before the input. Fenced by the lease epoch; the execution's row
 * is locked so that its state cannot change before the commit.
 */
async function dispatchesTo(
  executor: PostgresExecutor,
  sessionId: string,
  dispatch: { executionId: string; epoch: number },
): Promise<string | null> {
  await assertFence(executor, { sessionId, epoch: dispatch.epoch });
  const execution = await executor.row('SELECT state FROM executions WHERE id = $1 FOR UPDATE', [
    dispatch.executionId,
  ]);
  if (execution?.state !== 'idle') return null;
  const waiting = await executor.row(
    `SELECT 1 FROM inputs WHERE session_id = $1 AND state IN ('accepted', 'dispatching') LIMIT 1`,
    [sessionId],
  );
  return waiting === undefined ? dispatch.executionId : null;
}
