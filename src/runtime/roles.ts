import { backendNames } from '../backends/agent-backend.js';
import { type PermissionMode, permissionModes } from '../config/claude-config.js';
import { ConflictError, InvalidInputError, NotFoundError, StateError } from '../errors/index.js';
import { isSkillDigest } from '../skills/canonical.js';
import type {
  OrganizationRecord,
  RoleMeta,
  RolePatch,
  RoleRecord,
  RoleSurface,
} from '../store/org-storage.js';
import type { Access } from './access.js';
import { archiveSession } from './archive.js';
import type { Providers } from './providers.js';
import {
  type ActorOptions,
  defaultOrganization,
  ownerPrincipal,
  type RuntimeContext,
} from './runtime-context.js';

export interface RoleTarget extends ActorOptions {
  /** @default 'default' */
  organization?: string;
}

export type RoleFields = Partial<RoleSurface & RoleMeta>;

export interface CreateRoleOptions extends RoleTarget, RoleFields {
  name: string;
}

export interface UpdateRoleOptions extends RoleTarget {
  /** Refuse (`conflict`) unless this is the current version. */
  expectVersion?: number;
}

export interface RoleChange {
  role: RoleRecord;
  /** Sessions archived because the execution surface changed. */
  archived: string[];
}

const namePattern = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** The fields a change to which archives the role's active sessions. */
export const surfaceFields = [
  'provider',
  'backend',
  'model',
  'systemPrompt',
  'tools',
  'permissionMode',
  'skills',
  'userSkills',
] as const satisfies readonly (keyof RoleSurface)[];

export function surfaceChanged(before: RoleSurface, after: RoleSurface): boolean {
  return surfaceFields.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !namePattern.test(name))
    throw new InvalidInputError('role name must be lowercase letters, digits, . _ - (at most 63)', { name });
  return name;
}

function stringList(field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === ''))
    throw new InvalidInputError(`${field} must be a list of names`, { field });
  return [...new Set(value as string[])];
}

/**
 * Organizations' roles: versioned runtime data. Every change is a new version and takes effect for
 * the next dispatched input; a change to the execution surface archives the role's active sessions
 * (docs/decisions/0060-sessions-bound-to-role-surface.md). Changing roles takes `admin`.
 */
export class Roles {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
    private readonly providers: Providers,
  ) {}

  /** A fresh data dir gets one organization with one default role, made from the runtime's configuration. */
  async ensureDefaults(): Promise<void> {
    const { store } = this.context;
    if ((await store.listOrganizations()).length > 0) return;
    const now = Date.now();
    await store.ensureOrganization({ id: defaultOrganization, now });
    try {
      // Null surface fields mean "the runtime's configuration": today's behaviour, unchanged.
      await store.createRole({ organization: defaultOrganization, name: 'default', label: 'Default', now });
    } catch (error) {
      // Another process made it first.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  async create(options: CreateRoleOptions): Promise<RoleRecord> {
    const organization = options.organization ?? defaultOrganization;
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    const name = checkName(options.name);
    const fields = await this.checkFields(options);
    await this.context.store.ensureOrganization({ id: organization, now: Date.now() });
    return this.context.store.createRole({ ...fields, organization, name, now: Date.now() });
  }

  /** Writes the next version; with a surface change, archives the role's active sessions. */
  async update(name: string, patch: RolePatch, options: UpdateRoleOptions = {}): Promise<RoleChange> {
    const organization = options.organization ?? defaultOrganization;
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    const before = await this.get(name, { organization });
    const checked = await this.checkFields(patch);
    const role = await this.context.store.updateRole({
      organization,
      name,
      patch: checked,
      ...(options.expectVersion !== undefined ? { expectVersion: options.expectVersion } : {}),
      now: Date.now(),
    });
    const archived = surfaceChanged(before, role) ? await this.archiveSessionsOf(organization, name) : [];
    return { role, archived };
  }

  /** The default role cannot be deleted; make another the default first. Archives the role's sessions. */
  async delete(name: string, options: RoleTarget = {}): Promise<RoleChange> {
    const organization = options.organization ?? defaultOrganization;
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    await this.get(name, { organization });
    const org = await this.organization(organization);
    if (org.defaultRole === name)
      throw new StateError(
        `role ${name} is the default of ${organization}: make another role the default first`,
        {
          role: name,
        },
      );
    const role = await this.context.store.deleteRole({ organization, name, now: Date.now() });
    return { role, archived: await this.archiveSessionsOf(organization, name) };
  }

  /** The current version, or with `version` that one. */
  async get(name: string, options: { organization?: string; version?: number } = {}): Promise<RoleRecord> {
    const organization = options.organization ?? defaultOrganization;
    const role = await this.context.store.getRole(organization, name, options.version);
    if (!role)
      throw new NotFoundError(
        `role ${organization}/${name}${options.version !== undefined ? ` version ${options.version}` : ''} not found`,
        { organization, role: name },
      );
    return role;
  }

  async list(options: { organization?: string } = {}): Promise<RoleRecord[]> {
    return this.context.store.listRoles(options.organization ?? defaultOrganization);
  }

  async history(name: string, options: { organization?: string } = {}): Promise<RoleRecord[]> {
    const organization = options.organization ?? defaultOrganization;
    const versions = await this.context.store.roleHistory(organization, name);
    if (versions.length === 0) throw new NotFoundError(`role ${organization}/${name} not found`);
    return versions;
  }

  /** The organization's default role (current version). */
  async defaultRole(options: { organization?: string } = {}): Promise<RoleRecord> {
    const organization = await this.organization(options.organization ?? defaultOrganization);
    if (!organization.defaultRole) throw new StateError(`organization ${organization.id} has no roles yet`);
    return this.get(organization.defaultRole, { organization: organization.id });
  }

  async setDefault(name: string, options: RoleTarget = {}): Promise<OrganizationRecord> {
    const organization = options.organization ?? defaultOrganization;
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    return this.context.store.setDefaultRole({ organization, role: name, now: Date.now() });
  }

  async organizations(): Promise<OrganizationRecord[]> {
    return this.context.store.listOrganizations();
  }

  async organization(id: string): Promise<OrganizationRecord> {
    const organization = await this.context.store.getOrganization(id);
    if (!organization) throw new NotFoundError(`organization ${id} not found`, { organization: id });
    return organization;
  }

  private async archiveSessionsOf(organization: string, role: string): Promise<string[]> {
    const { store } = this.context;
    const active = await store.listSessions({ organization, role, state: 'active', limit: 100_000 });
    for (const session of active) await archiveSession(store, session, 'role_changed');
    return active.map((session) => session.id);
  }

  /** Checks the given fields (a create's or an update's); throws `invalid_input` / `not_found` and changes nothing. */
  private async checkFields(fields: RoleFields): Promise<RoleFields> {
    const checked: RoleFields = {};
    if (fields.provider !== undefined) {
      if (typeof fields.provider !== 'string') throw new InvalidInputError('provider must be a name');
      await this.providers.requireKnown(fields.provider);
      checked.provider = fields.provider;
    }
    if (fields.backend !== undefined) {
      if (!(backendNames as readonly unknown[]).includes(fields.backend))
        throw new InvalidInputError(`backend must be one of ${backendNames.join(', ')}`, {
          field: 'backend',
        });
      checked.backend = fields.backend;
    }
    for (const field of ['model', 'systemPrompt'] as const) {
      const value = fields[field];
      if (value === undefined) continue;
      if (value !== null && (typeof value !== 'string' || value.trim() === ''))
        throw new InvalidInputError(`${field} must be a non-empty string or null`, { field });
      checked[field] = value;
    }
    if (fields.tools !== undefined)
      checked.tools = fields.tools === null ? null : stringList('tools', fields.tools);
    if (fields.permissionMode !== undefined) {
      if (
        fields.permissionMode !== null &&
        !permissionModes.includes(fields.permissionMode as PermissionMode)
      )
        throw new InvalidInputError(`permissionMode must be one of ${permissionModes.join(', ')}`, {
          field: 'permissionMode',
        });
      checked.permissionMode = fields.permissionMode;
    }
    if (fields.skills !== undefined) {
      const skills = stringList('skills', fields.skills);
      for (const digest of skills) {
        if (!isSkillDigest(digest))
          throw new InvalidInputError(`skills are selected by digest (sha256:<64 hex>), not ${digest}`, {
            field: 'skills',
          });
        // A role may only select a skill that is stored and intact.
        await this.context.skills.get(digest);
      }
      checked.skills = skills.sort();
    }
    if (fields.userSkills !== undefined) {
      if (typeof fields.userSkills !== 'boolean')
        throw new InvalidInputError('userSkills must be true or false');
      checked.userSkills = fields.userSkills;
    }
    if (fields.label !== undefined) {
      if (typeof fields.label !== 'string' || fields.label.trim() === '')
        throw new InvalidInputError('label must be a non-empty string', { field: 'label' });
      checked.label = fields.label;
    }
    if (fields.ordering !== undefined) {
      if (!Number.isInteger(fields.ordering)) throw new InvalidInputError('ordering must be an integer');
      checked.ordering = fields.ordering;
    }
    if (fields.turnBudgetUsd !== undefined) {
      if (
        fields.turnBudgetUsd !== null &&
        !(typeof fields.turnBudgetUsd === 'number' && fields.turnBudgetUsd > 0)
      )
        throw new InvalidInputError('turnBudgetUsd must be a positive number or null', {
          field: 'turnBudgetUsd',
        });
      checked.turnBudgetUsd = fields.turnBudgetUsd;
    }
    return checked;
  }
}
