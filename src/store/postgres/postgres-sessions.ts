import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { jsonEqual } from '../json-equal.js';
import { toSessionRecord } from '../sqlite/rows.js';
import type { NewSession, SessionRecord, SessionStorage } from '../store.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

/** Sessions on PostgreSQL; see `SessionStorage` for the behaviour of each method. */
export function postgresSessions(connection: PostgresConnection): SessionStorage {
  return {
    async createSession(session) {
      return connection.write(async (executor) => {
        const launchId = session.launchId ?? null;
        if (launchId !== null) {
          const row = await executor.row('SELECT * FROM sessions WHERE launch_id = $1', [launchId]);
          if (row !== undefined) {
            const existing = toSessionRecord(row);
            const differences = launchDifferences(existing, session);
            if (differences.length > 0) {
              throw new ConflictError(
                `launch id ${launchId} already created session ${existing.id} with another ${differences.join(', ')}`,
                { launchId, sessionId: existing.id, differences },
              );
            }
            return { session: existing, created: false };
          }
        }
        if ((await executor.row('SELECT 1 FROM sessions WHERE id = $1', [session.id])) !== undefined) {
          throw new ConflictError(`session ${session.id} already exists`, { sessionId: session.id });
        }
        // A racing insert of the same id or launch id fails on its unique key; the connection runs
        // the transaction again and the checks above answer.
        const row = await executor.row(
          `INSERT INTO sessions (id, state, provider, organization, role, role_version, model, cwd, config,
             launch_id, title, created_at, updated_at)
           VALUES ($1, 'active', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
          [
            session.id,
            session.provider,
            session.organization ?? null,
            session.role ?? null,
            session.roleVersion ?? null,
            session.model ?? null,
            session.cwd,
            JSON.stringify(session.config),
            launchId,
            session.title ?? null,
            session.now,
          ],
        );
        return { session: toSessionRecord(row), created: true };
      });
    },

    async getSession(id) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM sessions WHERE id = $1', [id]);
        return row === undefined ? null : toSessionRecord(row);
      });
    },

    async listSessions(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM sessions WHERE ($1::text IS NULL OR state = $1)
               AND ($2::text IS NULL OR organization = $2)
               AND ($3::text IS NULL OR role = $3)
             ORDER BY created_at DESC, seq DESC LIMIT $4`,
            [
              options.state ?? null,
              options.organization ?? null,
              options.role ?? null,
              // LIMIT NULL is PostgreSQL for "no limit".
              options.limit === undefined ? null : Math.max(0, options.limit),
            ],
          )
        ).map(toSessionRecord),
      );
    },

    async updateSession(id, patch) {
      return connection.write(async (executor) => {
        const current = await requireSession(executor, id, { lock: true });
        const row = await executor.row(
          `UPDATE sessions SET state = $2, native_session_id = $3, title = $4, updated_at = $5
           WHERE id = $1 RETURNING *`,
          [
            id,
            patch.state ?? current.state,
            patch.nativeSessionId === undefined ? current.nativeSessionId : patch.nativeSessionId,
            patch.title === undefined ? current.title : patch.title,
            patch.now,
          ],
        );
        return toSessionRecord(row);
      });
    },
  };
}

/** The session, or `NotFoundError`; with `lock`, row-locked until the transaction ends. */
export async function requireSession(
  executor: PostgresExecutor,
  id: string,
  options: { lock?: boolean } = {},
): Promise<SessionRecord> {
  const row = await executor.row(
    `SELECT * FROM sessions WHERE id = $1${options.lock ? ' FOR NO KEY UPDATE' : ''}`,
    [id],
  );
  if (row === undefined) {
    throw new NotFoundError(`session ${id} does not exist`, { sessionId: id });
  }
  return toSessionRecord(row);
}

function launchDifferences(existing: SessionRecord, requested: NewSession): string[] {
  const differences: string[] = [];
  if (existing.provider !== requested.provider) differences.push('provider');
  if (existing.organization !== (requested.organization ?? null)) differences.push('organization');
  if (existing.role !== (requested.role ?? null)) differences.push('role');
  if (existing.model !== (requested.model ?? null)) differences.push('model');
  if (existing.cwd !== requested.cwd) differences.push('cwd');
  if (!jsonEqual(existing.config, requested.config)) differences.push('config');
  return differences;
}
