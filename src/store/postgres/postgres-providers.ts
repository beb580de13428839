import { InvalidInputError } from '../../errors/agentd-error.js';
import type { ProviderStorage } from '../org-storage.js';
import { toProviderRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection } from './postgres-connection.js';

/** The built-in profiles: resolved by the runtime, never stored. */
const builtInProviders: readonly string[] = ['env', 'offline'];

/** Provider profiles on PostgreSQL. A profile names where its secret is, never the secret. */
export function postgresProviders(connection: PostgresConnection): ProviderStorage {
  return {
    async putProvider(provider) {
      if (builtInProviders.includes(provider.name)) {
        throw new InvalidInputError(`provider ${provider.name} is built in and cannot be stored`, {
          provider: provider.name,
        });
      }
      return connection.write(async (executor) => {
        // xmax = 0 only on a row this statement inserted, not one it updated.
        const row = (await executor.row(
          `INSERT INTO providers (name, kind, base_url, secret, models, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $6)
           ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
             secret = excluded.secret, models = excluded.models, updated_at = excluded.updated_at
           RETURNING *, (xmax = 0) AS inserted`,
          [
            provider.name,
            provider.kind,
            provider.baseUrl,
            JSON.stringify(provider.secret),
            JSON.stringify(provider.models),
            provider.now,
          ],
        )) as Record<string, unknown>;
        return { provider: toProviderRecord(row), created: row.inserted === true };
      });
    },

    async getProvider(name) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM providers WHERE name = $1', [name]);
        return row === undefined ? null : toProviderRecord(row);
      });
    },

    async listProviders() {
      return connection.read(async (executor) =>
        (await executor.rows('SELECT * FROM providers ORDER BY name')).map(toProviderRecord),
      );
    },

    async removeProvider(name) {
      return connection.write(
        async (executor) => (await executor.run('DELETE FROM providers WHERE name = $1', [name])) > 0,
      );
    },
  };
}
