import * as v from 'valibot';
import { backendNames } from '../../backends/agent-backend.js';
import { permissionModes } from '../../config/claude-config.js';
import {
  type BudgetRecord,
  budgetScopes,
  type ChannelRecord,
  type GrantRecord,
  grantActions,
  type OrganizationRecord,
  type PrincipalRecord,
  type ProviderRecord,
  providerKinds,
  type RoleRecord,
} from '../org-storage.js';
import { type PermissionRuleRecord, ruleDecisions, ruleScopes } from '../rule-storage.js';
import { integer, jsonText, millis, parser } from './rows.js';

/*
 * Rows of the organization's tables (providers, roles, channels, grants, budgets), checked on read
 * like the rows in rows.ts.
 */

const secretRef = v.union([v.strictObject({ env: v.string() }), v.strictObject({ file: v.string() })]);

const providerModels = v.strictObject({
  opus: v.optional(v.string()),
  sonnet: v.optional(v.string()),
  haiku: v.optional(v.string()),
  subagent: v.optional(v.string()),
});

/** SQLite has no boolean: 0 or 1 in an INTEGER column. */
const flag = v.pipe(
  v.union([v.literal(0), v.literal(1)]),
  v.transform((value) => value === 1),
);

const providerRow = v.pipe(
  v.object({
    name: v.string(),
    kind: v.picklist(providerKinds),
    base_url: v.nullable(v.string()),
    secret: jsonText(secretRef),
    models: jsonText(providerModels),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
    (row): ProviderRecord => ({
      name: row.name,
      kind: row.kind,
      baseUrl: row.base_url,
      secret: row.secret,
      models: row.models,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  ),
);

const organizationRow = v.pipe(
  v.object({
    id: v.string(),
    default_role: v.nullable(v.string()),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
    (row): OrganizationRecord => ({
      id: row.id,
      defaultRole: row.default_role,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  ),
);

const roleRow = v.pipe(
  v.object({
    organization: v.string(),
    name: v.string(),
    version: v.pipe(integer, v.minValue(1)),
    provider: v.string(),
    backend: v.picklist(backendNames),
    model: v.nullable(v.string()),
    system_prompt: v.nullable(v.string()),
    tools: v.nullable(jsonText(v.array(v.string()))),
    permission_mode: v.nullable(v.picklist(permissionModes)),
    skills: jsonText(v.array(v.string())),
    user_skills: flag,
    label: v.string(),
    ordering: integer,
    turn_budget_usd: v.nullable(v.number()),
    warm_pool: v.nullable(integer),
    deleted: flag,
    created_at: millis,
  }),
  v.transform(
    (row): RoleRecord => ({
      organization: row.organization,
      name: row.name,
      version: row.version,
      provider: row.provider,
      backend: row.backend,
      model: row.model,
      systemPrompt: row.system_prompt,
      tools: row.tools,
      permissionMode: row.permission_mode,
      skills: row.skills,
      userSkills: row.user_skills,
      label: row.label,
      ordering: row.ordering,
      turnBudgetUsd: row.turn_budget_usd,
      warmPool: row.warm_pool,
      deleted: row.deleted,
      createdAt: row.created_at,
    }),
  ),
);

const channelRow = v.pipe(
  v.object({
    key: v.string(),
    organization: v.string(),
    project: v.string(),
    role: v.string(),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
    (row): ChannelRecord => ({
      key: row.key,
      organization: row.organization,
      project: row.project,
      role: row.role,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  ),
);

const principalRow = v.pipe(
  v.object({ id: v.string(), token_digest: v.nullable(v.string()), created_at: millis }),
  v.transform(
    (row): PrincipalRecord => ({ id: row.id, tokenDigest: row.token_digest, createdAt: row.created_at }),
  ),
);

const grantRow = v.pipe(
  v.object({
    id: v.string(),
    principal: v.string(),
    action: v.picklist(grantActions),
    resource: v.string(),
    created_at: millis,
  }),
  v.transform(
    (row): GrantRecord => ({
      id: row.id,
      principal: row.principal,
      action: row.action,
      resource: row.resource,
      createdAt: row.created_at,
    }),
  ),
);

const budgetRow = v.pipe(
  v.object({
    scope: v.picklist(budgetScopes),
    target: v.string(),
    limit_usd: v.number(),
    updated_at: millis,
  }),
  v.transform(
    (row): BudgetRecord => ({
      scope: row.scope,
      target: row.target,
      limitUsd: row.limit_usd,
      updatedAt: row.updated_at,
    }),
  ),
);

export const toProviderRecord = parser('providers', providerRow);
export const toOrganizationRecord = parser('organizations', organizationRow);
export const toRoleRecord = parser('role_versions', roleRow);
export const toChannelRecord = parser('channels', channelRow);
export const toPrincipalRecord = parser('principals', principalRow);
export const toGrantRecord = parser('grants', grantRow);
export const toBudgetRecord = parser('budgets', budgetRow);

const permissionRuleRow = v.pipe(
  v.object({
    id: v.string(),
    scope: v.picklist(ruleScopes),
    target: v.string(),
    rule: v.string(),
    decision: v.picklist(ruleDecisions),
    interaction_id: v.nullable(v.string()),
    created_by: v.nullable(v.string()),
    created_at: millis,
    revoked_at: v.nullable(millis),
  }),
  v.transform(
    (row): PermissionRuleRecord => ({
      id: row.id,
      scope: row.scope,
      target: row.target,
      rule: row.rule,
      decision: row.decision,
      interactionId: row.interaction_id,
      createdBy: row.created_by,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
    }),
  ),
);

export const toPermissionRuleRecord = parser('permission_rules', permissionRuleRow);
