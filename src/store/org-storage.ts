/**
 * The organization's data: provider profiles, organizations, versioned roles, channels, principals
 * and grants, budgets. Runtime data, not code: every change takes effect for the next dispatched
 * input without a restart (docs/roles.md).
 *
 * All times are epoch milliseconds. Names are compared exactly (case-sensitive).
 */
import type { BackendName } from '../backends/agent-backend.js';
import type { PermissionMode } from '../config/claude-config.js';

export const providerKinds = ['anthropic', 'openrouter', 'custom'] as const;
export type ProviderKind = (typeof providerKinds)[number];

/**
 * Where a provider's secret comes from, read by the worker when it starts: an environment variable
 * of the process that starts workers, or a file of the server's. Never the secret itself.
 */
export type SecretRef = { env: string } | { file: string };

/** Model ids claude uses for its side requests and subagents, mapped to the profile's own. */
export interface ProviderModels {
  /** ANTHROPIC_DEFAULT_OPUS_MODEL */
  opus?: string;
  /** ANTHROPIC_DEFAULT_SONNET_MODEL */
  sonnet?: string;
  /** ANTHROPIC_DEFAULT_HAIKU_MODEL (claude's small fast model: titles, summaries) */
  haiku?: string;
  /** CLAUDE_CODE_SUBAGENT_MODEL */
  subagent?: string;
}

export interface ProviderRecord {
  /** Unique; `env` and `offline` are built in and cannot be stored. */
  name: string;
  kind: ProviderKind;
  /** The Anthropic-compatible base URL (no `/v1`); null for `anthropic`'s own endpoint. */
  baseUrl: string | null;
  secret: SecretRef;
  models: ProviderModels;
  createdAt: number;
  updatedAt: number;
}

export interface OrganizationRecord {
  id: string;
  /** The name of the organization's default role; exactly one, stored as data. Null only while its first role is being made. */
  defaultRole: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The part of a role that shapes what the agent is: a change to any of these archives the role's
 * active sessions (docs/decisions/0060-sessions-bound-to-role-surface.md).
 */
export interface RoleSurface {
  /** A provider profile's name, or the built-in `env` / `offline`. */
  provider: string;
  /** The backend its sessions run on. @default 'claude' */
  backend: BackendName;
  /** Null: the provider's (or claude's) default model. */
  model: string | null;
  /** Appended to Claude Code's system prompt. Null: none. */
  systemPrompt: string | null;
  /** Tools that run without asking (allowlist). Null: claude's default set with ordinary permission prompts. */
  tools: string[] | null;
  permissionMode: PermissionMode | null;
  /** `sha256:<hex>` digests of the skills the role's sessions get, and no others. */
  skills: string[];
  /** Also give the user's own skills folder. @default false */
  userSkills: boolean;
}

/** What a role says that does not touch its sessions' execution surface. */
export interface RoleMeta {
  label: string;
  /** Listing order within the organization, lowest first. */
  ordering: number;
  /** The SDK's `maxBudgetUsd` for each turn. Null: none. */
  turnBudgetUsd: number | null;
  /**
   * How many warm workers (each with a booted `claude`) a server keeps ready for new sessions of
   * this role. Null: the server's `warmPool` setting.
   */
  warmPool: number | null;
}

/** One version of a role; each change writes a new version, the old ones stay readable. */
export interface RoleRecord extends RoleSurface, RoleMeta {
  organization: string;
  name: string;
  /** 1 for the first version, +1 for each change. */
  version: number;
  /** Set on the version written by `deleteRole`; a deleted role is not listed and not usable. */
  deleted: boolean;
  createdAt: number;
}

export type NewRole = Pick<RoleRecord, 'organization' | 'name'> & Partial<RoleSurface & RoleMeta>;

export type RolePatch = Partial<RoleSurface & RoleMeta>;

export interface ChannelRecord {
  /** The external conversation key: a chat group, a project thread, `a2a:<contextId>`. */
  key: string;
  organization: string;
  project: string;
  /** The selected role's name. */
  role: string;
  createdAt: number;
  updatedAt: number;
}

/** Actions a grant may allow. `admin` allows everything. */
export const grantActions = ['agent.trigger', 'role.trigger', 'admin'] as const;
export type GrantAction = (typeof grantActions)[number];

export interface PrincipalRecord {
  id: string;
  /** SHA-256 (hex) of the principal's bearer token; null for a principal without one. */
  tokenDigest: string | null;
  createdAt: number;
}

/**
 * `resource` is `project:<organization>/<project>`, `role:<organization>/<role>`, or `*` for every
 * resource; `<project>` or `<role>` may be `*` for all in the organization.
 */
export interface GrantRecord {
  id: string;
  principal: string;
  action: GrantAction;
  resource: string;
  createdAt: number;
}

export const budgetScopes = ['session', 'role', 'organization'] as const;
export type BudgetScope = (typeof budgetScopes)[number];

/** A cumulative spend limit. `target` is a session id, `<organization>/<role>`, or an organization id. */
export interface BudgetRecord {
  scope: BudgetScope;
  target: string;
  limitUsd: number;
  updatedAt: number;
}

export interface ProviderStorage {
  /** Creates or replaces a profile by name; `created` tells which. `invalid_input` for `env` or `offline`. */
  putProvider(
    provider: Omit<ProviderRecord, 'createdAt' | 'updatedAt'> & { now: number },
  ): Promise<{ provider: ProviderRecord; created: boolean }>;
  getProvider(name: string): Promise<ProviderRecord | null>;
  /** By name. */
  listProviders(): Promise<ProviderRecord[]>;
  /** False when there was none. */
  removeProvider(name: string): Promise<boolean>;
}

export interface OrganizationStorage {
  /** Creates the organization if it does not exist; returns it either way. */
  ensureOrganization(options: { id: string; now: number }): Promise<OrganizationRecord>;
  getOrganization(id: string): Promise<OrganizationRecord | null>;
  /** In creation order. */
  listOrganizations(): Promise<OrganizationRecord[]>;
  /** `not_found` when the organization or a live role of that name does not exist. */
  setDefaultRole(options: { organization: string; role: string; now: number }): Promise<OrganizationRecord>;
}

export interface RoleStorage {
  /**
   * Writes version 1 (or, for a name whose role was deleted, the next version) with defaults for
   * what is not given: provider `env`, model/systemPrompt/tools/permissionMode null, no skills,
   * userSkills false, label = name, ordering 0, turnBudgetUsd null. `conflict` when a live role
   * of that name exists; `not_found` when the organization does not. The organization's first role
   * (while its `defaultRole` is null) becomes its default in the same transaction.
   */
  createRole(role: NewRole & { now: number }): Promise<RoleRecord>;
  /**
   * Writes the next version: the current one with `patch` over it. With `expectVersion`, refused
   * (`conflict`) unless it is the current version. `not_found` for a missing or deleted role.
   */
  updateRole(options: {
    organization: string;
    name: string;
    patch: RolePatch;
    expectVersion?: number;
    now: number;
  }): Promise<RoleRecord>;
  /** Writes a version marked deleted. `not_found` for a missing or deleted role. */
  deleteRole(options: { organization: string; name: string; now: number }): Promise<RoleRecord>;
  /** The current version (null when missing or deleted), or with `version` that version (even of a deleted role). */
  getRole(organization: string, name: string, version?: number): Promise<RoleRecord | null>;
  /** Current versions of live roles, by ordering then name. */
  listRoles(organization: string): Promise<RoleRecord[]>;
  /** Every version of the role, oldest first. */
  roleHistory(organization: string, name: string): Promise<RoleRecord[]>;
}

export interface ChannelStorage {
  /**
   * Creates the channel with its first role. An existing channel with the same organization and
   * project is returned as it is (`created: false`, its selected role unchanged); with another
   * organization or project, `conflict`.
   */
  bindChannel(channel: {
    key: string;
    organization: string;
    project: string;
    role: string;
    now: number;
  }): Promise<{ channel: ChannelRecord; created: boolean }>;
  getChannel(key: string): Promise<ChannelRecord | null>;
  listChannels(options?: { organization?: string }): Promise<ChannelRecord[]>;
  selectChannelRole(options: { key: string; role: string; now: number }): Promise<ChannelRecord>;
  /** The channel's session for a role (whatever its state), or null. */
  getChannelSession(key: string, role: string): Promise<string | null>;
  /**
   * Points the channel's role at a session. With `expect`, only when the current one is `expect`
   * (null: none yet); returns false and changes nothing otherwise.
   */
  setChannelSession(options: {
    key: string;
    role: string;
    sessionId: string;
    expect?: string | null;
  }): Promise<boolean>;
}

export interface GrantStorage {
  /** Creates or updates a principal (its token digest). `conflict` when another principal has that digest. */
  putPrincipal(principal: { id: string; tokenDigest: string | null; now: number }): Promise<PrincipalRecord>;
  getPrincipal(id: string): Promise<PrincipalRecord | null>;
  getPrincipalByToken(tokenDigest: string): Promise<PrincipalRecord | null>;
  listPrincipals(): Promise<PrincipalRecord[]>;
  /**
   * Idempotent on (principal, action, resource): returns the existing grant. Creates the principal
   * if needed. `conflict` when `id` is taken by a grant of another principal, action or resource.
   */
  addGrant(grant: {
    id: string;
    principal: string;
    action: GrantAction;
    resource: string;
    now: number;
  }): Promise<GrantRecord>;
  /** In creation order. */
  listGrants(options?: { principal?: string }): Promise<GrantRecord[]>;
  /** False when there was none. */
  removeGrant(id: string): Promise<boolean>;
}

export interface BudgetStorage {
  /** Sets (or with `limitUsd: null` removes) a limit. */
  setBudget(budget: {
    scope: BudgetScope;
    target: string;
    limitUsd: number | null;
    now: number;
  }): Promise<void>;
  getBudget(scope: BudgetScope, target: string): Promise<BudgetRecord | null>;
  listBudgets(): Promise<BudgetRecord[]>;
  /**
   * Total cost (USD) of the sessions matching: one session, every session of a role (any version),
   * or every session of an organization. A session's spend grows in the same transaction that
   * appends its `agent.turn.completed` events (their `costUsd`).
   */
  spend(
    filter: { sessionId: string } | { organization: string; role: string } | { organization: string },
  ): Promise<number>;
}
