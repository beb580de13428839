import { InvalidInputError } from '../../errors/agentd-error.js';
import type { ProviderStorage } from '../org-storage.js';
import { toProviderRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** The built-in profiles: resolved by the runtime, never stored. */
const builtInProviders: readonly string[] = ['env', 'offline'];

/** Provider profiles on SQLite. A profile names where its secret is, never the secret. */
export function sqliteProviders(connection: SqliteConnection): ProviderStorage {
  return {
    async putProvider(provider) {
      if (builtInProviders.includes(provider.name)) {
        throw new InvalidInputError(`provider ${provider.name} is built in and cannot be stored`, {
          provider: provider.name,
        });
      }
      return connection.write(() => {
        const existing = connection.statement('SELECT 1 FROM providers WHERE name = ?').get(provider.name);
        connection
          .statement(
            `INSERT INTO providers (name, kind, base_url, secret, models, created_at, updated_at)
             VALUES (@name, @kind, @baseUrl, @secret, @models, @now, @now)
             ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
               secret = excluded.secret, models = excluded.models, updated_at = excluded.updated_at`,
          )
          .run({
            name: provider.name,
            kind: provider.kind,
            baseUrl: provider.baseUrl,
            secret: JSON.stringify(provider.secret),
            models: JSON.stringify(provider.models),
            now: provider.now,
          });
        const row = connection.statement('SELECT * FROM providers WHERE name = ?').get(provider.name);
        return { provider: toProviderRecord(row), created: existing === undefined };
      });
    },

    async getProvider(name) {
      return connection.read(() => {
        const row = connection.statement('SELECT * FROM providers WHERE name = ?').get(name);
        return row === undefined ? null : toProviderRecord(row);
      });
    },

    async listProviders() {
      return connection.read(() =>
        connection.statement('SELECT * FROM providers ORDER BY name').all().map(toProviderRecord),
      );
    },

    async removeProvider(name) {
      return connection.write(
        () => connection.statement('DELETE FROM providers WHERE name = ?').run(name).changes > 0,
      );
    },
  };
}
