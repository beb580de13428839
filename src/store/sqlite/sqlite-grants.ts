import { ConflictError, StoreError } from '../../errors/agentd-error.js';
import type { GrantStorage, PrincipalRecord } from '../org-storage.js';
import { toGrantRecord, toPrincipalRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Principals and grants on SQLite. Tokens are kept as digests only. */
export function sqliteGrants(connection: SqliteConnection): GrantStorage {
  return {
    async putPrincipal(principal) {
      return connection.write(() => {
        if (principal.tokenDigest !== null) {
          const holder = findPrincipalByToken(connection, principal.tokenDigest);
          if (holder !== null && holder.id !== principal.id) {
            // The digest is not named: it identifies a credential.
            throw new ConflictError(`another principal already has this token`, { principal: principal.id });
          }
        }
        connection
          .statement(
            `INSERT INTO principals (id, token_digest, created_at) VALUES (?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET token_digest = excluded.token_digest`,
          )
          .run(principal.id, principal.tokenDigest, principal.now);
        return requirePrincipal(connection, principal.id);
      });
    },

    async getPrincipal(id) {
      return connection.read(() => findPrincipal(connection, id));
    },

    async getPrincipalByToken(tokenDigest) {
      return connection.read(() => findPrincipalByToken(connection, tokenDigest));
    },

    async listPrincipals() {
      return connection.read(() =>
        connection.statement('SELECT * FROM principals ORDER BY seq').all().map(toPrincipalRecord),
      );
    },

    async addGrant(grant) {
      return connection.write(() => {
        const sameId = connection.statement('SELECT * FROM grants WHERE id = ?').get(grant.id);
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
        connection
          .statement(
            `INSERT INTO principals (id, token_digest, created_at) VALUES (?, NULL, ?)
             ON CONFLICT (id) DO NOTHING`,
          )
          .run(grant.principal, grant.now);
        connection
          .statement(
            `INSERT INTO grants (id, principal, action, resource, created_at)
             VALUES (@id, @principal, @action, @resource, @now)
             ON CONFLICT (principal, action, resource) DO NOTHING`,
          )
          .run(grant);
        const row = connection
          .statement('SELECT * FROM grants WHERE principal = ? AND action = ? AND resource = ?')
          .get(grant.principal, grant.action, grant.resource);
        return toGrantRecord(row);
      });
    },

    async listGrants(options = {}) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM grants WHERE (@principal IS NULL OR principal = @principal) ORDER BY seq')
          .all({ principal: options.principal ?? null })
          .map(toGrantRecord),
      );
    },

    async removeGrant(id) {
      return connection.write(
        () => connection.statement('DELETE FROM grants WHERE id = ?').run(id).changes > 0,
      );
    },
  };
}

function findPrincipal(connection: SqliteConnection, id: string): PrincipalRecord | null {
  const row = connection.statement('SELECT * FROM principals WHERE id = ?').get(id);
  return row === undefined ? null : toPrincipalRecord(row);
}

function findPrincipalByToken(connection: SqliteConnection, tokenDigest: string): PrincipalRecord | null {
  const row = connection.statement('SELECT * FROM principals WHERE token_digest = ?').get(tokenDigest);
  return row === undefined ? null : toPrincipalRecord(row);
}

function requirePrincipal(connection: SqliteConnection, id: string): PrincipalRecord {
  const principal = findPrincipal(connection, id);
  if (principal === null) {
    throw new StoreError({ message: `principal ${id} is missing right after it was written` });
  }
  return principal;
}
