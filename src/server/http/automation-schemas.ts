/** Bodies and responses of schedules and webhooks, registered for `/openapi.json` like org-schemas.ts. */
import { z } from 'zod';
import { firingStates, missedPolicies, scheduleStates } from '../../store/schedule-storage.js';
import { webhookDeliveryStates, webhookEventTypes, webhookStates } from '../../store/webhook-storage.js';
import { clientId, named, timestamp } from './schemas.js';

export const addScheduleBodySchema = named(
  'AddSchedule',
  z
    .strictObject({
      id: clientId.optional().describe('default: a new UUID'),
      cron: z.string().min(1).describe('five fields: minute hour day-of-month month day-of-week'),
      timezone: z.string().min(1).optional().describe('an IANA time zone; default: UTC'),
      role: z.string().min(1).optional().describe('start a new session of this role at each occurrence'),
      channel: z.string().min(1).optional().describe("send to this channel's session at each occurrence"),
      prompt: z.string().min(1),
      organization: z.string().min(1).optional().describe('default: `default`'),
      cwd: z.string().min(1).optional().describe("the sessions' working directory; default: the server's"),
      missed: z.enum(missedPolicies).optional().describe('occurrences missed while down: default `skip`'),
    })
    .refine((body) => (body.role === undefined) !== (body.channel === undefined), {
      message: 'give either role or channel',
    }),
);

export const scheduleSchema = named(
  'Schedule',
  z.object({
    id: z.string(),
    organization: z.string(),
    cron: z.string(),
    timezone: z.string(),
    target: z.union([
      z.object({ kind: z.literal('role'), role: z.string() }),
      z.object({ kind: z.literal('channel'), channel: z.string() }),
    ]),
    prompt: z.string(),
    cwd: z.string().nullable(),
    missed: z.enum(missedPolicies),
    state: z.enum(scheduleStates),
    nextAt: timestamp.nullable().describe('the next occurrence to decide on'),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);

export const firingSchema = named(
  'ScheduleFiring',
  z.object({
    scheduleId: z.string(),
    occurrence: timestamp,
    state: z.enum(firingStates),
    missed: z.number().int().describe('earlier occurrences not fired, decided on with this one'),
    sessionId: z.string().nullable(),
    error: z.string().nullable(),
    claimedAt: timestamp,
    updatedAt: timestamp,
  }),
);

export const scheduleResponseSchema = named('ScheduleResponse', z.object({ schedule: scheduleSchema }));
export const scheduleDetailsSchema = named(
  'ScheduleDetails',
  z.object({ schedule: scheduleSchema, firings: z.array(firingSchema) }),
);
export const scheduleListSchema = named('ScheduleList', z.object({ schedules: z.array(scheduleSchema) }));

export const addWebhookBodySchema = named(
  'AddWebhook',
  z.strictObject({
    id: clientId.optional().describe('default: a new UUID'),
    url: z.string().min(1).describe('an http or https URL deliveries are POSTed to'),
    events: z.array(z.enum(webhookEventTypes)).min(1),
    secretEnv: z
      .string()
      .min(1)
      .describe('the environment variable (of every node) holding the signing secret'),
    sessionId: z.string().min(1).optional().describe("only this session's events"),
    organization: z.string().min(1).optional().describe("default: the session's, else `default`"),
  }),
);

export const webhookSchema = named(
  'Webhook',
  z.object({
    id: z.string(),
    organization: z.string(),
    sessionId: z.string().nullable(),
    url: z.string(),
    events: z.array(z.enum(webhookEventTypes)),
    secretEnv: z.string().describe('the name of the variable; the secret itself is never stored'),
    state: z.enum(webhookStates),
    disabledReason: z.string().nullable(),
    failures: z.number().int().describe('failed attempts in a row'),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);

export const webhookResponseSchema = named('WebhookResponse', z.object({ webhook: webhookSchema }));
export const webhookListSchema = named('WebhookList', z.object({ webhooks: z.array(webhookSchema) }));

export const webhookDeliveryListSchema = named(
  'WebhookDeliveryList',
  z.object({
    deliveries: z.array(
      z.object({
        delivery: z.object({
          id: z.string().describe('the `webhook-id` header: the same on every attempt'),
          webhookId: z.string(),
          sessionId: z.string(),
          cursor: z.number().int(),
          type: z.enum(webhookEventTypes),
          payload: z.record(z.string(), z.unknown()),
          state: z.enum(webhookDeliveryStates),
          attempts: z.number().int(),
          nextAttemptAt: timestamp,
          claimedUntil: timestamp.nullable(),
          lastError: z.string().nullable(),
          createdAt: timestamp,
          deliveredAt: timestamp.nullable(),
        }),
        attempts: z.array(
          z.object({
            deliveryId: z.string(),
            attempt: z.number().int(),
            startedAt: timestamp,
            durationMs: z.number().int(),
            status: z.number().int().nullable(),
            ok: z.boolean(),
            error: z.string().nullable(),
          }),
        ),
      }),
    ),
  }),
);

export const disableWebhookBodySchema = named(
  'DisableWebhook',
  z.strictObject({ reason: z.string().min(1).max(500).optional() }),
);
