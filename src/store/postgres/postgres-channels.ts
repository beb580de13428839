import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ChannelRecord, ChannelStorage } from '../org-storage.js';
import { toChannelRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

/** Channels and their per-role sessions on PostgreSQL. */
export function postgresChannels(connection: PostgresConnection): ChannelStorage {
  return {
    async bindChannel(channel) {
      return connection.write(async (executor) => {
        const existing = await findChannel(executor, channel.key);
        if (existing !== null) {
          if (existing.organization !== channel.organization || existing.project !== channel.project) {
            throw new ConflictError(
              `channel ${channel.key} is bound to ${existing.organization}/${existing.project}, not ${channel.organization}/${channel.project}`,
              { key: channel.key, organization: existing.organization, project: existing.project },
            );
          }
          return { channel: existing, created: false };
        }
        const row = await executor.row(
          `INSERT INTO channels (key, organization, project, role, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $5) RETURNING *`,
          [channel.key, channel.organization, channel.project, channel.role, channel.now],
        );
        return { channel: toChannelRecord(row), created: true };
      });
    },

    async getChannel(key) {
      return connection.read(async (executor) => findChannel(executor, key));
    },

    async listChannels(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            'SELECT * FROM channels WHERE ($1::text IS NULL OR organization = $1) ORDER BY seq',
            [options.organization ?? null],
          )
        ).map(toChannelRecord),
      );
    },

    async selectChannelRole(options) {
      return connection.write(async (executor) => {
        const row = await executor.row(
          'UPDATE channels SET role = $1, updated_at = $2 WHERE key = $3 RETURNING *',
          [options.role, options.now, options.key],
        );
        if (row === undefined) {
          throw new NotFoundError(`channel ${options.key} does not exist`, { key: options.key });
        }
        return toChannelRecord(row);
      });
    },

    async getChannelSession(key, role) {
      return connection.read(async (executor) => currentSession(executor, key, role));
    },

    async setChannelSession(options) {
      return connection.write(async (executor) => {
        // The channel's row lock orders compare-and-set writers of the same channel.
        const channel = await executor.row('SELECT 1 FROM channels WHERE key = $1 FOR UPDATE', [options.key]);
        if (channel === undefined) {
          throw new NotFoundError(`channel ${options.key} does not exist`, { key: options.key });
        }
        if (
          options.expect !== undefined &&
          (await currentSession(executor, options.key, options.role)) !== options.expect
        ) {
          return false;
        }
        await executor.run(
          `INSERT INTO channel_sessions (channel_key, role, session_id) VALUES ($1, $2, $3)
           ON CONFLICT (channel_key, role) DO UPDATE SET session_id = excluded.session_id`,
          [options.key, options.role, options.sessionId],
        );
        return true;
      });
    },
  };
}

async function currentSession(executor: PostgresExecutor, key: string, role: string): Promise<string | null> {
  const row = await executor.row(
    'SELECT session_id FROM channel_sessions WHERE channel_key = $1 AND role = $2',
    [key, role],
  );
  return row === undefined ? null : String(row.session_id);
}

async function findChannel(executor: PostgresExecutor, key: string): Promise<ChannelRecord | null> {
  const row = await executor.row('SELECT * FROM channels WHERE key = $1', [key]);
  return row === undefined ? null : toChannelRecord(row);
}
