import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { jsonEqual } from '../json-equal.js';
import type { NewSession, SessionRecord, SessionStorage } from '../store.js';
import { toSessionRecord } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Sessions on SQLite; see `SessionStorage` for the behaviour of each method. */
export function sqliteSessions(connection: SqliteConnection): SessionStorage {
  return {
    async createSession(session) {
      return connection.write(() => {
        const launchId = session.launchId ?? null;
        if (launchId !== null) {
          const row = connection.statement('SELECT * FROM sessions WHERE launch_id = ?').get(launchId);
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
        if (connection.statement('SELECT 1 FROM sessions WHERE id = ?').get(session.id) !== undefined) {
          throw new ConflictError(`session ${session.id} already exists`, { sessionId: session.id });
        }
        connection
          .statement(
            `INSERT INTO sessions (id, state, provider, organization, role, role_version, model, cwd, config,
             launch_id, title, created_at, updated_at)
           VALUES (@id, 'active', @provider, @organization, @role, @roleVersion, @model, @cwd, @config,
             @launchId, @title, @now, @now)`,
          )
          .run({
            id: session.id,
            provider: session.provider,
            organization: session.organization ?? null,
            role: session.role ?? null,
            roleVersion: session.roleVersion ?? null,
            model: session.model ?? null,
            cwd: session.cwd,
            config: JSON.stringify(session.config),
            launchId,
            title: session.title ?? null,
            now: session.now,
          });
        return { session: requireSession(connection, session.id), created: true };
      });
    },

    async getSession(id) {
      return connection.read(() => {
        const row = connection.statement('SELECT * FROM sessions WHERE id = ?').get(id);
        return row === undefined ? null : toSessionRecord(row);
      });
    },

    async listSessions(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM sessions WHERE (@state IS NULL OR state = @state)
             AND (@organization IS NULL OR organization = @organization)
             AND (@role IS NULL OR role = @role)
           ORDER BY created_at DESC, seq DESC LIMIT @limit`,
          )
          .all({
            state: options.state ?? null,
            organization: options.organization ?? null,
            role: options.role ?? null,
            // LIMIT -1 is SQLite for "no limit".
            limit: options.limit === undefined ? -1 : Math.max(0, options.limit),
          })
          .map(toSessionRecord),
      );
    },

    async updateSession(id, patch) {
      return connection.write(() => {
        const current = requireSession(connection, id);
        connection
          .statement(
            `UPDATE sessions SET state = @state, native_session_id = @nativeSessionId, title = @title,
             updated_at = @now
           WHERE id = @id`,
          )
          .run({
            id,
            state: patch.state ?? current.state,
            nativeSessionId:
              patch.nativeSessionId === undefined ? current.nativeSessionId : patch.nativeSessionId,
            title: patch.title === undefined ? current.title : patch.title,
            now: patch.now,
          });
        return requireSession(connection, id);
      });
    },
  };
}

/** The session, or `NotFoundError`. Call inside a read or write. */
export function requireSession(connection: SqliteConnection, id: string): SessionRecord {
  const row = connection.statement('SELECT * FROM sessions WHERE id = ?').get(id);
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
