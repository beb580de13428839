/**
 * The bodies of the organization's resources (providers, roles, skills, channels, grants, budgets)
 * and of messages under the closed command protocol, registered with the same registry as
 * schemas.ts for `/openapi.json`.
 */
import { z } from 'zod';
import { backendNames } from '../../backends/agent-backend.js';
import { permissionModes } from '../../config/claude-config.js';
import { budgetScopes, grantActions, providerKinds } from '../../store/org-storage.js';
import {
  clientId,
  executionSchema,
  inputSchema,
  interactionSchema,
  named,
  sessionSchema,
  timestamp,
} from './schemas.js';

const name = z.string().min(1).max(200);
const organizationField = z.string().min(1).optional().describe('default: `default`');

const secretRefSchema = z
  .union([
    z.strictObject({ env: z.string().min(1).describe("an environment variable of the server's") }),
    z.strictObject({ file: z.string().min(1).describe("an absolute path of a file of the server's") }),
  ])
  .describe('where the secret is read when a worker starts: never the secret itself');

const providerModelsSchema = z.strictObject({
  opus: z.string().min(1).optional().describe('ANTHROPIC_DEFAULT_OPUS_MODEL'),
  sonnet: z.string().min(1).optional().describe('ANTHROPIC_DEFAULT_SONNET_MODEL'),
  haiku: z.string().min(1).optional().describe('ANTHROPIC_DEFAULT_HAIKU_MODEL'),
  subagent: z.string().min(1).optional().describe('CLAUDE_CODE_SUBAGENT_MODEL'),
});

export const providerSchema = named(
  'Provider',
  z.object({
    name: z.string(),
    kind: z.enum(providerKinds),
    baseUrl: z.string().nullable(),
    secret: secretRefSchema,
    models: providerModelsSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
  'A provider profile: how to reach a model, and where its secret comes from.',
);

export const addProviderBodySchema = named(
  'AddProviderRequest',
  z.strictObject({
    name,
    kind: z.enum(providerKinds),
    baseUrl: z
      .string()
      .min(1)
      .optional()
      .describe('Anthropic-compatible endpoint without /v1; default for openrouter, required for custom'),
    secret: secretRefSchema,
    models: providerModelsSchema.optional(),
  }),
);

export const providerResponseSchema = named(
  'ProviderResponse',
  z.object({ provider: providerSchema, created: z.boolean().optional() }),
);
export const providerListSchema = named('ProviderList', z.object({ providers: z.array(providerSchema) }));

const roleFields = {
  label: z.string().min(1).optional(),
  ordering: z.number().int().optional(),
  provider: z.string().min(1).optional().describe('a provider profile, or the built-in `env` / `offline`'),
  backend: z.enum(backendNames).optional().describe('what runs the sessions: claude (the default) or codex'),
  model: z.string().min(1).nullable().optional(),
  systemPrompt: z.string().min(1).nullable().optional().describe("appended to Claude Code's system prompt"),
  tools: z.array(z.string().min(1)).nullable().optional().describe('tools that run without asking'),
  permissionMode: z.enum(permissionModes).nullable().optional(),
  skills: z.array(z.string()).optional().describe('skill digests (sha256:<64 hex>)'),
  userSkills: z.boolean().optional().describe("also give the user's own skills folder"),
  turnBudgetUsd: z.number().positive().nullable().optional().describe('maxBudgetUsd of each turn'),
};

export const roleSchema = named(
  'Role',
  z.object({
    organization: z.string(),
    name: z.string(),
    version: z.number().int(),
    deleted: z.boolean(),
    label: z.string(),
    ordering: z.number().int(),
    provider: z.string(),
    backend: z.enum(backendNames),
    model: z.string().nullable(),
    systemPrompt: z.string().nullable(),
    tools: z.array(z.string()).nullable(),
    permissionMode: z.enum(permissionModes).nullable(),
    skills: z.array(z.string()),
    userSkills: z.boolean(),
    turnBudgetUsd: z.number().nullable(),
    createdAt: timestamp,
  }),
  'One version of a role; every change writes the next.',
);

export const createRoleBodySchema = named(
  'CreateRoleRequest',
  z.strictObject({ name, organization: organizationField, ...roleFields }),
);

export const updateRoleBodySchema = named(
  'UpdateRoleRequest',
  z.strictObject({
    ...roleFields,
    expectVersion: z.number().int().min(1).optional().describe('refused (409 conflict) unless current'),
  }),
  'Fields to change; a change to provider, model, systemPrompt, tools, permissionMode, skills or userSkills archives the role’s active sessions.',
);

export const roleQuerySchema = z.object({
  organization: z.string().min(1).optional().describe('default: `default`'),
  version: z.coerce.number().int().min(1).optional().describe('that version instead of the current one'),
});

export const roleResponseSchema = named('RoleResponse', z.object({ role: roleSchema }));
export const roleListSchema = named(
  'RoleList',
  z.object({
    roles: z.array(roleSchema),
    defaultRole: z.string().nullable().describe("the organization's default role"),
  }),
);
export const roleVersionsSchema = named('RoleVersions', z.object({ versions: z.array(roleSchema) }));
export const roleChangeSchema = named(
  'RoleChange',
  z.object({
    role: roleSchema,
    archived: z.array(z.string()).describe('sessions archived because the execution surface changed'),
  }),
);
export const organizationSchema = named(
  'Organization',
  z.object({
    id: z.string(),
    defaultRole: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export const organizationResponseSchema = named(
  'OrganizationResponse',
  z.object({ organization: organizationSchema }),
);

const skillFileSchema = z.object({ path: z.string(), bytes: z.number().int(), executable: z.boolean() });
export const skillSchema = named(
  'Skill',
  z.object({
    digest: z.string().describe('sha256:<64 hex> of the canonical content'),
    name: z.string(),
    description: z.string(),
    files: z.array(skillFileSchema),
    bytes: z.number().int(),
    created: z.boolean().optional().describe('false when the same content was already stored'),
  }),
);
export const skillResponseSchema = named('SkillResponse', z.object({ skill: skillSchema }));
export const skillListSchema = named(
  'SkillList',
  z.object({
    skills: z.array(
      z.union([
        skillSchema.extend({ state: z.literal('ok') }),
        z.object({ state: z.literal('corrupt'), digest: z.string(), reason: z.string() }),
      ]),
    ),
  }),
);

export const channelSchema = named(
  'Channel',
  z.object({
    key: z.string(),
    organization: z.string(),
    project: z.string(),
    role: z.string().describe('the selected role'),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export const bindChannelBodySchema = named(
  'BindChannelRequest',
  z.strictObject({
    key: z.string().min(1).describe('an external conversation key (chat group, thread, a2a:<contextId>)'),
    organization: organizationField,
    project: z.string().min(1).optional().describe('default: `default`'),
    role: z.string().min(1).optional().describe("default: the organization's default role"),
  }),
);
export const channelBindingSchema = named(
  'ChannelBinding',
  z.object({ channel: channelSchema, created: z.boolean() }),
);
export const channelDetailsSchema = named(
  'ChannelDetails',
  z.object({
    channel: channelSchema,
    role: roleSchema.describe('the role messages go to'),
    session: sessionSchema.nullable().describe("the channel's session for that role"),
  }),
);
export const channelListSchema = named('ChannelList', z.object({ channels: z.array(channelSchema) }));
export const selectRoleBodySchema = named('SelectRoleRequest', z.strictObject({ role: name }));
export const channelMessageBodySchema = named(
  'ChannelMessageRequest',
  z.strictObject({
    text: z
      .string()
      .min(1)
      .describe('text for the agent, or a command: /compact, /stop, /status, /new, /pending, /help'),
    messageId: clientId.optional().describe('the same id and text is the same input'),
    role: z.string().min(1).optional().describe('select this role first (needs role.trigger)'),
    organization: organizationField.describe('where a channel that does not exist yet is bound'),
    project: z.string().min(1).optional().describe('where a channel that does not exist yet is bound'),
  }),
);

const reachedLimitSchema = z.object({
  scope: z.enum(budgetScopes),
  target: z.string(),
  limitUsd: z.number(),
  spentUsd: z.number(),
});
const sessionStatusSchema = z.object({
  session: sessionSchema,
  live: executionSchema.nullable(),
  waitingInputs: z.number().int(),
  pendingInteractions: z.number().int(),
  costUsd: z.number(),
  budget: reachedLimitSchema.nullable().describe('the limit reached, if any: inputs wait'),
});

export const messageResultSchema = named(
  'MessageResult',
  z.union([
    z.object({ kind: z.literal('input'), session: sessionSchema, input: inputSchema }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('compact'),
      session: sessionSchema,
      input: inputSchema,
    }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('stop'),
      session: sessionSchema.nullable(),
      execution: executionSchema.nullable(),
    }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('status'),
      session: sessionSchema.nullable(),
      status: sessionStatusSchema.nullable(),
    }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('new'),
      session: sessionSchema.nullable(),
      archived: sessionSchema.nullable(),
    }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('pending'),
      session: sessionSchema.nullable(),
      interactions: z.array(interactionSchema),
    }),
    z.object({
      kind: z.literal('command'),
      command: z.literal('help'),
      session: sessionSchema.nullable(),
      commands: z.array(z.object({ name: z.string(), description: z.string() })),
    }),
  ]),
  'What a message did: text became an input; a command ran (/compact as an input of its own).',
);

export const grantSchema = named(
  'Grant',
  z.object({
    id: z.string(),
    principal: z.string(),
    action: z.enum(grantActions),
    resource: z.string(),
    createdAt: timestamp,
  }),
);
export const addGrantBodySchema = named(
  'AddGrantRequest',
  z.strictObject({
    principal: name,
    action: z.enum(grantActions),
    resource: z
      .string()
      .min(1)
      .describe('project:<org>/<project>, role:<org>/<role> (either may be /*), or *'),
  }),
);
export const grantResponseSchema = named('GrantResponse', z.object({ grant: grantSchema }));
export const grantListSchema = named('GrantList', z.object({ grants: z.array(grantSchema) }));
export const listGrantsQuerySchema = z.object({ principal: z.string().min(1).optional() });

export const budgetSchema = named(
  'Budget',
  z.object({
    scope: z.enum(budgetScopes),
    target: z.string(),
    limitUsd: z.number(),
    spentUsd: z.number(),
    exceeded: z.boolean(),
    updatedAt: timestamp,
  }),
  'A cumulative limit with what has been spent against it.',
);
export const setBudgetBodySchema = named(
  'SetBudgetRequest',
  z.strictObject({
    scope: z.enum(budgetScopes),
    target: z.string().min(1).describe('a session id, <organization>/<role>, or an organization'),
    limitUsd: z.number().min(0).nullable().describe('null removes the limit'),
  }),
);
export const budgetResponseSchema = named(
  'BudgetResponse',
  z.object({ budget: budgetSchema.nullable().describe('null when the limit was removed') }),
);
export const budgetListSchema = named('BudgetList', z.object({ budgets: z.array(budgetSchema) }));

export const spendReportSchema = named(
  'SpendReport',
  z.object({
    organizations: z.array(
      z.object({ organization: z.string(), spentUsd: z.number(), limitUsd: z.number().nullable() }),
    ),
    roles: z.array(
      z.object({
        organization: z.string(),
        role: z.string(),
        spentUsd: z.number(),
        limitUsd: z.number().nullable(),
      }),
    ),
  }),
);

export const organizationQuerySchema = z.object({ organization: z.string().min(1).optional() });
