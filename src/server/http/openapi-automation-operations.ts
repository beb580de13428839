import {
  addScheduleBodySchema,
  addWebhookBodySchema,
  disableWebhookBodySchema,
  scheduleDetailsSchema,
  scheduleListSchema,
  scheduleResponseSchema,
  webhookDeliveryListSchema,
  webhookListSchema,
  webhookResponseSchema,
} from './automation-schemas.js';
import { errors, type Operation } from './openapi-operation.js';
import { organizationQuerySchema } from './org-schemas.js';

const noContent = { 204: { description: 'removed' } };

/** The routes of schedules and webhooks (docs/run-control.md). */
export const automationOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/schedules',
    summary: 'Schedules',
    tag: 'schedules',
    query: organizationQuerySchema,
    responses: { 200: { description: 'schedules', schema: scheduleListSchema }, ...errors(401) },
  },
  {
    method: 'post',
    path: '/v1/schedules',
    summary:
      "Add a schedule: at each occurrence, a new session of a role, or a message to a channel's session",
    tag: 'schedules',
    body: addScheduleBodySchema,
    responses: {
      201: { description: 'created', schema: scheduleResponseSchema },
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    method: 'get',
    path: '/v1/schedules/{id}',
    summary: 'A schedule and its latest firings, newest first',
    tag: 'schedules',
    responses: { 200: { description: 'the schedule', schema: scheduleDetailsSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/schedules/{id}/pause',
    summary: 'Pause: no occurrence fires, and none counts as missed',
    tag: 'schedules',
    responses: { 200: { description: 'paused', schema: scheduleResponseSchema }, ...errors(401, 403, 404) },
  },
  {
    method: 'post',
    path: '/v1/schedules/{id}/resume',
    summary: 'Resume from the next occurrence',
    tag: 'schedules',
    responses: { 200: { description: 'active', schema: scheduleResponseSchema }, ...errors(401, 403, 404) },
  },
  {
    method: 'delete',
    path: '/v1/schedules/{id}',
    summary: 'Remove a schedule and its firings',
    tag: 'schedules',
    responses: { ...noContent, ...errors(401, 403, 404) },
  },
  {
    method: 'get',
    path: '/v1/webhooks',
    summary: 'Webhooks',
    tag: 'webhooks',
    query: organizationQuerySchema,
    responses: { 200: { description: 'webhooks', schema: webhookListSchema }, ...errors(401) },
  },
  {
    method: 'post',
    path: '/v1/webhooks',
    summary:
      "Subscribe to an organization's or a session's events; deliveries are signed with the secret in `secretEnv`",
    tag: 'webhooks',
    body: addWebhookBodySchema,
    responses: {
      201: { description: 'created', schema: webhookResponseSchema },
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}',
    summary: 'A webhook, with why it was disabled',
    tag: 'webhooks',
    responses: { 200: { description: 'the webhook', schema: webhookResponseSchema }, ...errors(401, 404) },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    summary: 'Its deliveries, newest first, each with every attempt',
    tag: 'webhooks',
    responses: { 200: { description: 'deliveries', schema: webhookDeliveryListSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/enable',
    summary: 'Enable again: pending deliveries go on',
    tag: 'webhooks',
    responses: { 200: { description: 'active', schema: webhookResponseSchema }, ...errors(401, 403, 404) },
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/disable',
    summary: 'Disable, with a reason',
    tag: 'webhooks',
    body: disableWebhookBodySchema,
    responses: {
      200: { description: 'disabled', schema: webhookResponseSchema },
      ...errors(400, 401, 403, 404),
    },
  },
  {
    method: 'delete',
    path: '/v1/webhooks/{id}',
    summary: 'Remove a webhook with its deliveries',
    tag: 'webhooks',
    responses: { ...noContent, ...errors(401, 403, 404) },
  },
];
