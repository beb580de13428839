import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { RoleRecord, RoleStorage } from '../org-storage.js';
import { toRoleRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';
import { requireOrganization } from './postgres-organizations.js';

/**
 * Versioned roles on PostgreSQL: every write reads the current version and inserts the next one in
 * one transaction; of two racing writers, the second one's insert hits the primary key on
 * (organization, name, version) and its transaction runs again on top of the first one's version.
 */
export function postgresRoles(connection: PostgresConnection): RoleStorage {
  return {
    async createRole(role) {
      return connection.write(async (executor) => {
        const organization = await requireOrganization(executor, role.organization, { lock: true });
        const latest = await latestRole(executor, role.organization, role.name);
        if (latest !== null && !latest.deleted) {
          throw new ConflictError(`role ${role.organization}/${role.name} already exists`, {
            organization: role.organization,
            role: role.name,
            version: latest.version,
          });
        }
        const written = await insertVersion(executor, {
          organization: role.organization,
          name: role.name,
          version: (latest?.version ?? 0) + 1,
          provider: role.provider ?? 'env',
          backend: role.backend ?? 'claude',
          model: role.model ?? null,
          systemPrompt: role.systemPrompt ?? null,
          tools: role.tools ?? null,
          permissionMode: role.permissionMode ?? null,
          skills: role.skills ?? [],
          userSkills: role.userSkills ?? false,
          label: role.label ?? role.name,
          ordering: role.ordering ?? 0,
          turnBudgetUsd: role.turnBudgetUsd ?? null,
          warmPool: role.warmPool ?? null,
          deleted: false,
          createdAt: role.now,
        });
        // The organization's first role becomes its default: an organization has one as soon as it has a role.
        if (organization.defaultRole === null) {
          await executor.run('UPDATE organizations SET default_role = $1, updated_at = $2 WHERE id = $3', [
            role.name,
            role.now,
            role.organization,
          ]);
        }
        return written;
      });
    },

    async updateRole(options) {
      return connection.write(async (executor) => {
        await lockRole(executor, options.organization, options.name);
        const current = await requireLiveRole(executor, options.organization, options.name);
        if (options.expectVersion !== undefined && options.expectVersion !== current.version) {
          throw new ConflictError(
            `role ${options.organization}/${options.name} is at version ${current.version}, not ${options.expectVersion}`,
            {
              organization: options.organization,
              role: options.name,
              version: current.version,
              expectVersion: options.expectVersion,
            },
          );
        }
        const patch = Object.fromEntries(
          Object.entries(options.patch).filter(([, value]) => value !== undefined),
        ) as Partial<RoleRecord>;
        return insertVersion(executor, {
          ...current,
          ...patch,
          organization: current.organization,
          name: current.name,
          version: current.version + 1,
          deleted: false,
          createdAt: options.now,
        });
      });
    },

    async deleteRole(options) {
      return connection.write(async (executor) => {
        await lockRole(executor, options.organization, options.name);
        const current = await requireLiveRole(executor, options.organization, options.name);
        return insertVersion(executor, {
          ...current,
          version: current.version + 1,
          deleted: true,
          createdAt: options.now,
        });
      });
    },

    async getRole(organization, name, version) {
      return connection.read(async (executor) => {
        if (version === undefined) {
          return liveRole(executor, organization, name);
        }
        const row = await executor.row(
          'SELECT * FROM role_versions WHERE organization = $1 AND name = $2 AND version = $3',
          [organization, name, version],
        );
        return row === undefined ? null : toRoleRecord(row);
      });
    },

    async listRoles(organization) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM role_versions AS r
             WHERE organization = $1 AND deleted = 0
               AND version = (SELECT MAX(version) FROM role_versions
                              WHERE organization = r.organization AND name = r.name)
             ORDER BY ordering, name`,
            [organization],
          )
        ).map(toRoleRecord),
      );
    },

    async roleHistory(organization, name) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            'SELECT * FROM role_versions WHERE organization = $1 AND name = $2 ORDER BY version',
            [organization, name],
          )
        ).map(toRoleRecord),
      );
    },
  };
}

/**
 * Writers of one role's next version take turns (until their transaction ends): reading the highest
 * version and inserting the one after it is then one step, however many nodes race. Without it,
 * racing updates collide on the version key more often than a retry can absorb.
 */
async function lockRole(executor: PostgresExecutor, organization: string, name: string): Promise<void> {
  await executor.row('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `role:${organization}/${name}`,
  ]);
}

/** The role's highest version, deleted or not, or null. */
async function latestRole(
  executor: PostgresExecutor,
  organization: string,
  name: string,
): Promise<RoleRecord | null> {
  const row = await executor.row(
    'SELECT * FROM role_versions WHERE organization = $1 AND name = $2 ORDER BY version DESC LIMIT 1',
    [organization, name],
  );
  return row === undefined ? null : toRoleRecord(row);
}

/** The role's current version, or null when it is missing or deleted. */
export async function liveRole(
  executor: PostgresExecutor,
  organization: string,
  name: string,
): Promise<RoleRecord | null> {
  const latest = await latestRole(executor, organization, name);
  return latest === null || latest.deleted ? null : latest;
}

async function requireLiveRole(
  executor: PostgresExecutor,
  organization: string,
  name: string,
): Promise<RoleRecord> {
  const role = await liveRole(executor, organization, name);
  if (role === null) {
    throw new NotFoundError(`role ${organization}/${name} does not exist`, { organization, role: name });
  }
  return role;
}

async function insertVersion(executor: PostgresExecutor, role: RoleRecord): Promise<RoleRecord> {
  // Hand back what a read will return, not the caller's own arrays.
  const row = await executor.row(
    `INSERT INTO role_versions (organization, name, version, provider, model, system_prompt, tools,
       permission_mode, skills, user_skills, label, ordering, turn_budget_usd, deleted, created_at, warm_pool, backend)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING *`,
    [
      role.organization,
      role.name,
      role.version,
      role.provider,
      role.model,
      role.systemPrompt,
      role.tools === null ? null : JSON.stringify(role.tools),
      role.permissionMode,
      JSON.stringify(role.skills),
      role.userSkills ? 1 : 0,
      role.label,
      role.ordering,
      role.turnBudgetUsd,
      role.deleted ? 1 : 0,
      role.createdAt,
      role.warmPool,
      role.backend,
    ],
  );
  return toRoleRecord(row);
}
