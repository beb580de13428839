import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { toExecutionRecord } from '../sqlite/rows.js';
import type { ExecutionRecord, ExecutionStorage } from '../store.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { assertFence } from './postgres-leases.js';
import { requireSession } from './postgres-sessions.js';

/** Executions on PostgreSQL. */
export function postgresExecutions(connection: PostgresConnection): ExecutionStorage {
  return {
    async createExecution(execution) {
      return connection.write(async (executor) => {
        await requireSession(executor, execution.sessionId);
        if ((await executor.row('SELECT 1 FROM executions WHERE id = $1', [execution.id])) !== undefined) {
          throw new ConflictError(`execution ${execution.id} already exists`, { executionId: execution.id });
        }
        const row = await executor.row(
          `INSERT INTO executions (id, session_id, state, epoch, created_at, updated_at)
           VALUES ($1, $2, 'starting', 0, $3, $3) RETURNING *`,
          [execution.id, execution.sessionId, execution.now],
        );
        return toExecutionRecord(row);
      });
    },

    async getExecution(id) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM executions WHERE id = $1', [id]);
        return row === undefined ? null : toExecutionRecord(row);
      });
    },

    async listExecutions(sessionId) {
      return connection.read(async (executor) =>
        (await executor.rows('SELECT * FROM executions WHERE session_id = $1 ORDER BY seq', [sessionId])).map(
          toExecutionRecord,
        ),
      );
    },

    async listExecutionsByState(states) {
      return connection.read(async (executor) =>
        (
          await executor.rows('SELECT * FROM executions WHERE state = ANY($1::text[]) ORDER BY seq', [states])
        ).map(toExecutionRecord),
      );
    },

    async updateExecution(id, patch, fence) {
      return connection.write(async (executor) => {
        const sessionRow = (await executor.row('SELECT session_id FROM executions WHERE id = $1', [id])) as
          | { session_id: string }
          | undefined;
        if (sessionRow === undefined) {
          throw new NotFoundError(`execution ${id} does not exist`, { executionId: id });
        }
        await assertFence(executor, { sessionId: sessionRow.session_id, epoch: fence?.epoch });
        const current = await requireExecution(executor, id);
        const stateMayChange = fence?.stateFrom === undefined || fence.stateFrom.includes(current.state);
        const row = await executor.row(
          `UPDATE executions SET state = $2, epoch = $3, pid = $4, process_start_time = $5, error = $6,
             ended_at = $7, updated_at = $8
           WHERE id = $1 RETURNING *`,
          [
            id,
            (stateMayChange ? patch.state : undefined) ?? current.state,
            patch.epoch ?? current.epoch,
            patch.pid === undefined ? current.pid : patch.pid,
            patch.processStartTime === undefined ? current.processStartTime : patch.processStartTime,
            jsonOrNull(patch.error === undefined ? current.error : patch.error),
            patch.endedAt === undefined ? current.endedAt : patch.endedAt,
            patch.now,
          ],
        );
        return toExecutionRecord(row);
      });
    },
  };
}

/** The execution, row-locked until the transaction ends, or `NotFoundError`. */
export async function requireExecution(executor: PostgresExecutor, id: string): Promise<ExecutionRecord> {
  const row = await executor.row('SELECT * FROM executions WHERE id = $1 FOR UPDATE', [id]);
  if (row === undefined) {
    throw new NotFoundError(`execution ${id} does not exist`, { executionId: id });
  }
  return toExecutionRecord(row);
}

function jsonOrNull(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
