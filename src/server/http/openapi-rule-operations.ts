import { errors, type Operation } from './openapi-operation.js';
import {
  addPermissionRuleBodySchema,
  listPermissionRulesQuerySchema,
  permissionRuleListSchema,
  permissionRuleResponseSchema,
} from './rule-schemas.js';

export const ruleOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/rules',
    summary: 'Permission rules in force (approval scopes); with sessionId, those that hold in that session',
    tag: 'interactions',
    query: listPermissionRulesQuerySchema,
    responses: { 200: { description: 'rules', schema: permissionRuleListSchema }, ...errors(400, 401, 404) },
  },
  {
    method: 'post',
    path: '/v1/rules',
    summary: 'Add a permission rule for a session, a role or an organization',
    tag: 'interactions',
    body: addPermissionRuleBodySchema,
    responses: {
      201: { description: 'added', schema: permissionRuleResponseSchema },
      ...errors(400, 401, 403, 404, 413),
    },
  },
  {
    method: 'get',
    path: '/v1/rules/{id}',
    summary: 'One permission rule',
    tag: 'interactions',
    responses: {
      200: { description: 'the rule', schema: permissionRuleResponseSchema },
      ...errors(401, 404),
    },
  },
  {
    method: 'delete',
    path: '/v1/rules/{id}',
    summary: 'Revoke a permission rule: it decides nothing from now on, in running workers too',
    tag: 'interactions',
    responses: {
      200: { description: 'revoked', schema: permissionRuleResponseSchema },
      ...errors(401, 403, 404),
    },
  },
];
