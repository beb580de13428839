import { z } from 'zod';
import { ruleDecisions, ruleScopes } from '../../store/rule-storage.js';
import { named } from './schemas.js';

export const permissionRuleSchema = named(
  'PermissionRule',
  z.object({
    id: z.string(),
    scope: z.enum(ruleScopes),
    target: z.string().describe('the session id, <organization>/<role>, or the organization'),
    rule: z.string().describe('Claude Code syntax, like Bash(npm test:*)'),
    decision: z.enum(ruleDecisions),
    interactionId: z.string().nullable(),
    createdBy: z.string().nullable(),
    createdAt: z.number(),
    revokedAt: z.number().nullable(),
  }),
  'A scoped decision on tool uses: it approves or denies matching uses without asking anyone.',
);

export const permissionRuleListSchema = named(
  'PermissionRuleList',
  z.object({ rules: z.array(permissionRuleSchema) }),
);

export const permissionRuleResponseSchema = named(
  'PermissionRuleResponse',
  z.object({ rule: permissionRuleSchema }),
);

export const addPermissionRuleBodySchema = named(
  'AddPermissionRuleRequest',
  z.strictObject({
    scope: z.enum(ruleScopes),
    target: z.string().min(1),
    rule: z.string().min(1).max(1000),
    decision: z.enum(ruleDecisions).optional().describe('default approve'),
  }),
);

export const listPermissionRulesQuerySchema = z.strictObject({
  sessionId: z.string().min(1).optional().describe('only the rules that hold in this session'),
  all: z.enum(['true', 'false']).optional().describe('revoked ones too'),
});
