import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ExecutionRecord, ExecutionStorage } from '../store.js';
import { toExecutionRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { assertFence } from './sqlite-leases.js';
import { requireSession } from './sqlite-sessions.js';

/** Executions on SQLite. */
export function sqliteExecutions(connection: SqliteConnection): ExecutionStorage {
  return {
    async createExecution(execution) {
      return connection.write(() => {
        requireSession(connection, execution.sessionId);
        if (connection.statement('SELECT 1 FROM executions WHERE id = ?').get(execution.id) !== undefined) {
          throw new ConflictError(`execution ${execution.id} already exists`, { executionId: execution.id });
        }
        connection
          .statement(
            `INSERT INTO executions (id, session_id, state, epoch, created_at, updated_at)
           VALUES (@id, @sessionId, 'starting', 0, @now, @now)`,
          )
          .run({ id: execution.id, sessionId: execution.sessionId, now: execution.now });
        return requireExecution(connection, execution.id);
      });
    },

    async getExecution(id) {
      return connection.read(() => {
        const row = connection.statement('SELECT * FROM executions WHERE id = ?').get(id);
        return row === undefined ? null : toExecutionRecord(row);
      });
    },

    async listExecutions(sessionId) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM executions WHERE session_id = ? ORDER BY seq')
          .all(sessionId)
          .map(toExecutionRecord),
      );
    },

    async listExecutionsByState(states) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM executions WHERE state IN (SELECT value FROM json_each(?)) ORDER BY seq')
          .all(JSON.stringify(states))
          .map(toExecutionRecord),
      );
    },

    async updateExecution(id, patch, fence) {
      return connection.write(() => {
        const current = requireExecution(connection, id);
        assertFence(connection, { sessionId: current.sessionId, epoch: fence?.epoch });
        const stateMayChange = fence?.stateFrom === undefined || fence.stateFrom.includes(current.state);
        connection
          .statement(
            `UPDATE executions SET state = @state, epoch = @epoch, pid = @pid,
             process_start_time = @processStartTime, error = @error, ended_at = @endedAt, updated_at = @now
           WHERE id = @id`,
          )
          .run({
            id,
            state: (stateMayChange ? patch.state : undefined) ?? current.state,
            epoch: patch.epoch ?? current.epoch,
            pid: patch.pid === undefined ? current.pid : patch.pid,
            processStartTime:
              patch.processStartTime === undefined ? current.processStartTime : patch.processStartTime,
            error: jsonOrNull(patch.error === undefined ? current.error : patch.error),
            endedAt: patch.endedAt === undefined ? current.endedAt : patch.endedAt,
            now: patch.now,
          });
        return requireExecution(connection, id);
      });
    },
  };
}

export function requireExecution(connection: SqliteConnection, id: string): ExecutionRecord {
  const row = connection.statement('SELECT * FROM executions WHERE id = ?').get(id);
  if (row === undefined) {
    throw new NotFoundError(`execution ${id} does not exist`, { executionId: id });
  }
  return toExecutionRecord(row);
}

function jsonOrNull(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
