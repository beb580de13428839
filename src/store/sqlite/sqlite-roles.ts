import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { RoleRecord, RoleStorage } from '../org-storage.js';
import { toRoleRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { requireOrganization } from './sqlite-organizations.js';

/**
 * Versioned roles on SQLite: every write reads the current version and inserts the next one in the
 * same IMMEDIATE transaction, so racing writers get distinct versions (and the primary key on
 * (organization, name, version) would refuse a duplicate anyway).
 */
export function sqliteRoles(connection: SqliteConnection): RoleStorage {
  return {
    async createRole(role) {
      return connection.write(() => {
        const organization = requireOrganization(connection, role.organization);
        const latest = latestRole(connection, role.organization, role.name);
        if (latest !== null && !latest.deleted) {
          throw new ConflictError(`role ${role.organization}/${role.name} already exists`, {
            organization: role.organization,
            role: role.name,
            version: latest.version,
          });
        }
        const record: RoleRecord = {
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
        };
        const written = insertVersion(connection, record);
        // The organization's first role becomes its default: an organization has one as soon as it has a role.
        if (organization.defaultRole === null) {
          connection
            .statement('UPDATE organizations SET default_role = ?, updated_at = ? WHERE id = ?')
            .run(role.name, role.now, role.organization);
        }
        return written;
      });
    },

    async updateRole(options) {
      return connection.write(() => {
        const current = requireLiveRole(connection, options.organization, options.name);
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
        return insertVersion(connection, {
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
      return connection.write(() => {
        const current = requireLiveRole(connection, options.organization, options.name);
        return insertVersion(connection, {
          ...current,
          version: current.version + 1,
          deleted: true,
          createdAt: options.now,
        });
      });
    },

    async getRole(organization, name, version) {
      return connection.read(() => {
        if (version === undefined) {
          return liveRole(connection, organization, name);
        }
        const row = connection
          .statement('SELECT * FROM role_versions WHERE organization = ? AND name = ? AND version = ?')
          .get(organization, name, version);
        return row === undefined ? null : toRoleRecord(row);
      });
    },

    async listRoles(organization) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM role_versions AS r
             WHERE organization = ? AND deleted = 0
               AND version = (SELECT MAX(version) FROM role_versions
                              WHERE organization = r.organization AND name = r.name)
             ORDER BY ordering, name`,
          )
          .all(organization)
          .map(toRoleRecord),
      );
    },

    async roleHistory(organization, name) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM role_versions WHERE organization = ? AND name = ? ORDER BY version')
          .all(organization, name)
          .map(toRoleRecord),
      );
    },
  };
}

/** The role's highest version, deleted or not, or null. Call inside a read or write. */
function latestRole(connection: SqliteConnection, organization: string, name: string): RoleRecord | null {
  const row = connection
    .statement(
      'SELECT * FROM role_versions WHERE organization = ? AND name = ? ORDER BY version DESC LIMIT 1',
    )
    .get(organization, name);
  return row === undefined ? null : toRoleRecord(row);
}

/** The role's current version, or null when it is missing or deleted. Call inside a read or write. */
export function liveRole(
  connection: SqliteConnection,
  organization: string,
  name: string,
): RoleRecord | null {
  const latest = latestRole(connection, organization, name);
  return latest === null || latest.deleted ? null : latest;
}

function requireLiveRole(connection: SqliteConnection, organization: string, name: string): RoleRecord {
  const role = liveRole(connection, organization, name);
  if (role === null) {
    throw new NotFoundError(`role ${organization}/${name} does not exist`, { organization, role: name });
  }
  return role;
}

function insertVersion(connection: SqliteConnection, role: RoleRecord): RoleRecord {
  connection
    .statement(
      `INSERT INTO role_versions (organization, name, version, provider, backend, model, system_prompt, tools,
         permission_mode, skills, user_skills, label, ordering, turn_budget_usd, warm_pool, deleted, created_at)
       VALUES (@organization, @name, @version, @provider, @backend, @model, @systemPrompt, @tools,
         @permissionMode, @skills, @userSkills, @label, @ordering, @turnBudgetUsd, @warmPool, @deleted, @createdAt)`,
    )
    .run({
      ...role,
      tools: role.tools === null ? null : JSON.stringify(role.tools),
      skills: JSON.stringify(role.skills),
      userSkills: role.userSkills ? 1 : 0,
      deleted: role.deleted ? 1 : 0,
    });
  // Hand back what a read will return, not the caller's own arrays.
  return readVersion(connection, role);
}

function readVersion(connection: SqliteConnection, role: RoleRecord): RoleRecord {
  const row = connection
    .statement('SELECT * FROM role_versions WHERE organization = ? AND name = ? AND version = ?')
    .get(role.organization, role.name, role.version);
  return toRoleRecord(row);
}
