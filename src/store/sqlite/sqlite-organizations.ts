import { NotFoundError } from '../../errors/agentd-error.js';
import type { OrganizationRecord, OrganizationStorage } from '../org-storage.js';
import { toOrganizationRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { liveRole } from './sqlite-roles.js';

/** Organizations on SQLite. */
export function sqliteOrganizations(connection: SqliteConnection): OrganizationStorage {
  return {
    async ensureOrganization(options) {
      return connection.write(() => {
        connection
          .statement(
            `INSERT INTO organizations (id, default_role, created_at, updated_at) VALUES (?, NULL, ?, ?)
             ON CONFLICT (id) DO NOTHING`,
          )
          .run(options.id, options.now, options.now);
        return requireOrganization(connection, options.id);
      });
    },

    async getOrganization(id) {
      return connection.read(() => findOrganization(connection, id));
    },

    async listOrganizations() {
      return connection.read(() =>
        connection.statement('SELECT * FROM organizations ORDER BY seq').all().map(toOrganizationRecord),
      );
    },

    async setDefaultRole(options) {
      return connection.write(() => {
        requireOrganization(connection, options.organization);
        if (liveRole(connection, options.organization, options.role) === null) {
          throw new NotFoundError(`role ${options.organization}/${options.role} does not exist`, {
            organization: options.organization,
            role: options.role,
          });
        }
        connection
          .statement('UPDATE organizations SET default_role = ?, updated_at = ? WHERE id = ?')
          .run(options.role, options.now, options.organization);
        return requireOrganization(connection, options.organization);
      });
    },
  };
}

/** The organization, or null. Call inside a read or write. */
export function findOrganization(connection: SqliteConnection, id: string): OrganizationRecord | null {
  const row = connection.statement('SELECT * FROM organizations WHERE id = ?').get(id);
  return row === undefined ? null : toOrganizationRecord(row);
}

/** The organization, or `NotFoundError`. Call inside a read or write. */
export function requireOrganization(connection: SqliteConnection, id: string): OrganizationRecord {
  const organization = findOrganization(connection, id);
  if (organization === null) {
    throw new NotFoundError(`organization ${id} does not exist`, { organization: id });
  }
  return organization;
}
