import { z } from 'zod';
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
import { jsonText, millis, parser } from './rows.js';

/*
 * Rows of the organization's tables (providers, roles, channels, grants, budgets), checked on read
 * like the rows in rows.ts.
 */

const secretRef = z.union([z.object({ env: z.string() }).strict(), z.object({ file: z.string() }).strict()]);

const providerModels = z
  .object({
    opus: z.string().optional(),
    sonnet: z.string().optional(),
    haiku: z.string().optional(),
    subagent: z.string().optional(),
  })
  .strict();

/** SQLite has no boolean: 0 or 1 in an INTEGER column. */
const flag = z.union([z.literal(0), z.literal(1)]).transform((value) => value === 1);

const providerRow = z
  .object({
    name: z.string(),
    kind: z.enum(providerKinds),
    base_url: z.string().nullable(),
    secret: jsonText(secretRef),
    models: jsonText(providerModels),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): ProviderRecord => ({
      name: row.name,
      kind: row.kind,
      baseUrl: row.base_url,
      secret: row.secret,
      models: row.models,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const organizationRow = z
  .object({
    id: z.string(),
    default_role: z.string().nullable(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): OrganizationRecord => ({
      id: row.id,
      defaultRole: row.default_role,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const roleRow = z
  .object({
    organization: z.string(),
    name: z.string(),
    version: z.number().int().positive(),
    provider: z.string(),
    backend: z.enum(backendNames),
    model: z.string().nullable(),
    system_prompt: z.string().nullable(),
    tools: jsonText(z.array(z.string())).nullable(),
    permission_mode: z.enum(permissionModes).nullable(),
    skills: jsonText(z.array(z.string())),
    user_skills: flag,
    label: z.string(),
    ordering: z.number().int(),
    turn_budget_usd: z.number().nullable(),
    deleted: flag,
    created_at: millis,
  })
  .transform(
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
      deleted: row.deleted,
      createdAt: row.created_at,
    }),
  );

const channelRow = z
  .object({
    key: z.string(),
    organization: z.string(),
    project: z.string(),
    role: z.string(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): ChannelRecord => ({
      key: row.key,
      organization: row.organization,
      project: row.project,
      role: row.role,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const principalRow = z
  .object({ id: z.string(), token_digest: z.string().nullable(), created_at: millis })
  .transform(
    (row): PrincipalRecord => ({ id: row.id, tokenDigest: row.token_digest, createdAt: row.created_at }),
  );

const grantRow = z
  .object({
    id: z.string(),
    principal: z.string(),
    action: z.enum(grantActions),
    resource: z.string(),
    created_at: millis,
  })
  .transform(
    (row): GrantRecord => ({
      id: row.id,
      principal: row.principal,
      action: row.action,
      resource: row.resource,
      createdAt: row.created_at,
    }),
  );

const budgetRow = z
  .object({
    scope: z.enum(budgetScopes),
    target: z.string(),
    limit_usd: z.number(),
    updated_at: millis,
  })
  .transform(
    (row): BudgetRecord => ({
      scope: row.scope,
      target: row.target,
      limitUsd: row.limit_usd,
      updatedAt: row.updated_at,
    }),
  );

export const toProviderRecord = parser('providers', providerRow);
export const toOrganizationRecord = parser('organizations', organizationRow);
export const toRoleRecord = parser('role_versions', roleRow);
export const toChannelRecord = parser('channels', channelRow);
export const toPrincipalRecord = parser('principals', principalRow);
export const toGrantRecord = parser('grants', grantRow);
export const toBudgetRecord = parser('budgets', budgetRow);
