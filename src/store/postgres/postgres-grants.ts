import { ConflictError, StoreError } from '../../errors/agentd-error.js';
import type { GrantStorage, PrincipalRecord } from '../org-storage.js';
import { toGrantRecord, toPrincipalRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

/** Principals and grants on PostgreSQL. Tokens are kept as digests only. */
export function postgresGrants(connection: PostgresConnection): GrantStorage {
  return {
    async putPrincipal(principal) {
      return connection.write(async (executor) => {
        if (principal.tokenDigest !== null) {
          const holder = await findPrincipalByToken(executor, principal.tokenDigest);
          if (holder !== null && holder.id !== principal.id) {
            // The digest is not named: it identifies a credential.
            throw new ConflictError('another principal already has this token', { principal: principal.id });
          }
        }
        const row = await executor.row(
          `INSERT INTO principals (id, token_digest, created_at) VALUES ($1, $2, $3)
           ON CONFLICT (id) DO UPDATE SET token_digest = excluded.token_digest RETURNING *`,
          [principal.id, principal.tokenDigest, principal.now],
        );
        if (row === undefined) {
          throw new StoreError({
            message: `principal ${principal.id} is missing right after it was written`,
          });
        }
        return toPrincipalRecord(row);
      });
    },

    async getPrincipal(id) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM principals WHERE id = $1', [id]);
        return row === undefined ? null : toPrincipalRecord(row);
      });
    },

    async getPrincipalByToken(tokenDigest) {
      return connection.read(async (executor) => findPrincipalByToken(executor, tokenDigest));
    },

    async listPrincipals() {
      return connection.read(async (executor) =>
        (await executor.rows('SELECT * FROM principals ORDER BY seq')).map(toPrincipalRecord),
      );
    },

    async addGrant(grant) {
      return connection.write(async (executor) => {
        const sameId = await executor.row('SELECT * FROM grants WHERE id = $1', [grant.id]);
        if (sameId !== undefined) {
          const existing = toGrantRecord(sameId);
          if (
            existing.principal !== grant.principal ||
            existing.action !== grant.action ||
            existing.resource !== grant.resource
          ) {
            throw new ConflictError(
              `grant ${grant.id} already exists with another principal, action or resource`,
              {
                grantId: grant.id,
              },
            );
          }
          return existing;
        }
        await executor.run(
          `INSERT INTO principals (id, token_digest, created_at) VALUES ($1, NULL, $2)
           ON CONFLICT (id) DO NOTHING`,
          [grant.principal, grant.now],
        );
        await executor.run(
          `INSERT INTO grants (id, principal, action, resource, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (principal, action, resource) DO NOTHING`,
          [grant.id, grant.principal, grant.action, grant.resource, grant.now],
        );
        const row = await executor.row(
          'SELECT * FROM grants WHERE principal = $1 AND action = $2 AND resource = $3',
          [grant.principal, grant.action, grant.resource],
        );
        return toGrantRecord(row);
      });
    },

    async listGrants(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            'SELECT * FROM grants WHERE ($1::text IS NULL OR principal = $1) ORDER BY seq',
            [options.principal ?? null],
          )
        ).map(toGrantRecord),
      );
    },

    async removeGrant(id) {
      return connection.write(
        async (executor) => (await executor.run('DELETE FROM grants WHERE id = $1', [id])) > 0,
      );
    },
  };
}

async function findPrincipalByToken(
  executor: PostgresExecutor,
  tokenDigest: string,
): Promise<PrincipalRecord | null> {
  const row = await executor.row('SELECT * FROM principals WHERE token_digest = $1', [tokenDigest]);
  return row === undefined ? null : toPrincipalRecord(row);
}
