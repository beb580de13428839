import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ChannelRecord, ChannelStorage } from '../org-storage.js';
import { toChannelRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Channels and their per-role sessions on SQLite. */
export function sqliteChannels(connection: SqliteConnection): ChannelStorage {
  return {
    async bindChannel(channel) {
      return connection.write(() => {
        const existing = findChannel(connection, channel.key);
        if (existing !== null) {
          if (existing.organization !== channel.organization || existing.project !== channel.project) {
            throw new ConflictError(
              `channel ${channel.key} is bound to ${existing.organization}/${existing.project}, not ${channel.organization}/${channel.project}`,
              {
                key: channel.key,
                organization: existing.organization,
                project: existing.project,
              },
            );
          }
          return { channel: existing, created: false };
        }
        connection
          .statement(
            `INSERT INTO channels (key, organization, project, role, created_at, updated_at)
             VALUES (@key, @organization, @project, @role, @now, @now)`,
          )
          .run(channel);
        return { channel: requireChannel(connection, channel.key), created: true };
      });
    },

    async getChannel(key) {
      return connection.read(() => findChannel(connection, key));
    },

    async listChannels(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            'SELECT * FROM channels WHERE (@organization IS NULL OR organization = @organization) ORDER BY seq',
          )
          .all({ organization: options.organization ?? null })
          .map(toChannelRecord),
      );
    },

    async selectChannelRole(options) {
      return connection.write(() => {
        requireChannel(connection, options.key);
        connection
          .statement('UPDATE channels SET role = ?, updated_at = ? WHERE key = ?')
          .run(options.role, options.now, options.key);
        return requireChannel(connection, options.key);
      });
    },

    async getChannelSession(key, role) {
      return connection.read(() => currentSession(connection, key, role));
    },

    async setChannelSession(options) {
      return connection.write(() => {
        requireChannel(connection, options.key);
        if (
          options.expect !== undefined &&
          currentSession(connection, options.key, options.role) !== options.expect
        ) {
          return false;
        }
        connection
          .statement(
            `INSERT INTO channel_sessions (channel_key, role, session_id) VALUES (?, ?, ?)
             ON CONFLICT (channel_key, role) DO UPDATE SET session_id = excluded.session_id`,
          )
          .run(options.key, options.role, options.sessionId);
        return true;
      });
    },
  };
}

function currentSession(connection: SqliteConnection, key: string, role: string): string | null {
  const row = connection
    .statement('SELECT session_id FROM channel_sessions WHERE channel_key = ? AND role = ?')
    .get(key, role) as { session_id: string } | undefined;
  return row?.session_id ?? null;
}

function findChannel(connection: SqliteConnection, key: string): ChannelRecord | null {
  const row = connection.statement('SELECT * FROM channels WHERE key = ?').get(key);
  return row === undefined ? null : toChannelRecord(row);
}

function requireChannel(connection: SqliteConnection, key: string): ChannelRecord {
  const channel = findChannel(connection, key);
  if (channel === null) {
    throw new NotFoundError(`channel ${key} does not exist`, { key });
  }
  return channel;
}
