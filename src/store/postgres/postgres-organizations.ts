import { NotFoundError } from '../../errors/agentd-error.js';
import type { OrganizationRecord, OrganizationStorage } from '../org-storage.js';
import { toOrganizationRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { liveRole } from './postgres-roles.js';

/** Organizations on PostgreSQL. */
export function postgresOrganizations(connection: PostgresConnection): OrganizationStorage {
  return {
    async ensureOrganization(options) {
      return connection.write(async (executor) => {
        await executor.run(
          `INSERT INTO organizations (id, default_role, created_at, updated_at) VALUES ($1, NULL, $2, $2)
           ON CONFLICT (id) DO NOTHING`,
          [options.id, options.now],
        );
        return requireOrganization(executor, options.id);
      });
    },

    async getOrganization(id) {
      return connection.read(async (executor) => findOrganization(executor, id));
    },

    async listOrganizations() {
      return connection.read(async (executor) =>
        (await executor.rows('SELECT * FROM organizations ORDER BY seq')).map(toOrganizationRecord),
      );
    },

    async setDefaultRole(options) {
      return connection.write(async (executor) => {
        await requireOrganization(executor, options.organization, { lock: true });
        if ((await liveRole(executor, options.organization, options.role)) === null) {
          throw new NotFoundError(`role ${options.organization}/${options.role} does not exist`, {
            organization: options.organization,
            role: options.role,
          });
        }
        const row = await executor.row(
          'UPDATE organizations SET default_role = $1, updated_at = $2 WHERE id = $3 RETURNING *',
          [options.role, options.now, options.organization],
        );
        return toOrganizationRecord(row);
      });
    },
  };
}

/** The organization, or null; with `lock`, row-locked until the transaction ends. */
export async function findOrganization(
  executor: PostgresExecutor,
  id: string,
  options: { lock?: boolean } = {},
): Promise<OrganizationRecord | null> {
  const row = await executor.row(
    `SELECT * FROM organizations WHERE id = $1${options.lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return row === undefined ? null : toOrganizationRecord(row);
}

/** The organization, or `NotFoundError`. */
export async function requireOrganization(
  executor: PostgresExecutor,
  id: string,
  options: { lock?: boolean } = {},
): Promise<OrganizationRecord> {
  const organization = await findOrganization(executor, id, options);
  if (organization === null) {
    throw new NotFoundError(`organization ${id} does not exist`, { organization: id });
  }
  return organization;
}
