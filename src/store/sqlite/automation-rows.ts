import { z } from 'zod';
import {
  firingStates,
  missedPolicies,
  type ScheduleFiringRecord,
  type ScheduleRecord,
  scheduleStates,
} from '../schedule-storage.js';
import {
  type WebhookAttemptRecord,
  type WebhookDeliveryRecord,
  type WebhookRecord,
  webhookDeliveryStates,
  webhookEventTypes,
  webhookStates,
} from '../webhook-storage.js';
import { jsonText, millis, parser } from './rows.js';

/* Rows of the schedule and webhook tables, checked on read like the rows in rows.ts (both stores). */

const target = z.union([
  z.object({ kind: z.literal('role'), role: z.string() }).strict(),
  z.object({ kind: z.literal('channel'), channel: z.string() }).strict(),
]);

const scheduleRow = z
  .object({
    id: z.string(),
    organization: z.string(),
    cron: z.string(),
    timezone: z.string(),
    target: jsonText(target),
    prompt: z.string(),
    cwd: z.string().nullable(),
    missed: z.enum(missedPolicies),
    state: z.enum(scheduleStates),
    next_at: millis.nullable(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): ScheduleRecord => ({
      id: row.id,
      organization: row.organization,
      cron: row.cron,
      timezone: row.timezone,
      target: row.target,
      prompt: row.prompt,
      cwd: row.cwd,
      missed: row.missed,
      state: row.state,
      nextAt: row.next_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const firingRow = z
  .object({
    schedule_id: z.string(),
    occurrence: millis,
    state: z.enum(firingStates),
    missed: z.number().int(),
    session_id: z.string().nullable(),
    error: z.string().nullable(),
    claimed_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): ScheduleFiringRecord => ({
      scheduleId: row.schedule_id,
      occurrence: row.occurrence,
      state: row.state,
      missed: row.missed,
      sessionId: row.session_id,
      error: row.error,
      claimedAt: row.claimed_at,
      updatedAt: row.updated_at,
    }),
  );

const webhookRow = z
  .object({
    id: z.string(),
    organization: z.string(),
    session_id: z.string().nullable(),
    url: z.string(),
    events: jsonText(z.array(z.enum(webhookEventTypes))),
    secret_env: z.string(),
    state: z.enum(webhookStates),
    disabled_reason: z.string().nullable(),
    failures: z.number().int(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): WebhookRecord => ({
      id: row.id,
      organization: row.organization,
      sessionId: row.session_id,
      url: row.url,
      events: row.events,
      secretEnv: row.secret_env,
      state: row.state,
      disabledReason: row.disabled_reason,
      failures: row.failures,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const payload = z.looseObject({
  id: z.string(),
  type: z.enum(webhookEventTypes),
  webhookId: z.string(),
  sessionId: z.string(),
  organization: z.string().nullable(),
  cursor: z.number(),
  occurredAt: z.string(),
  data: z.unknown(),
});

const deliveryRow = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    session_id: z.string(),
    cursor: z.number().int(),
    event_type: z.enum(webhookEventTypes),
    payload: jsonText(payload),
    state: z.enum(webhookDeliveryStates),
    attempts: z.number().int(),
    next_attempt_at: millis,
    claimed_until: millis.nullable(),
    last_error: z.string().nullable(),
    created_at: millis,
    delivered_at: millis.nullable(),
  })
  .transform(
    (row): WebhookDeliveryRecord => ({
      id: row.id,
      webhookId: row.webhook_id,
      sessionId: row.session_id,
      cursor: row.cursor,
      type: row.event_type,
      payload: row.payload,
      state: row.state,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at,
      claimedUntil: row.claimed_until,
      lastError: row.last_error,
      createdAt: row.created_at,
      deliveredAt: row.delivered_at,
    }),
  );

const attemptRow = z
  .object({
    delivery_id: z.string(),
    attempt: z.number().int(),
    started_at: millis,
    duration_ms: z.number().int(),
    status: z.number().int().nullable(),
    ok: z.union([z.literal(0), z.literal(1)]),
    error: z.string().nullable(),
  })
  .transform(
    (row): WebhookAttemptRecord => ({
      deliveryId: row.delivery_id,
      attempt: row.attempt,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      status: row.status,
      ok: row.ok === 1,
      error: row.error,
    }),
  );

export const toScheduleRecord = parser('schedules', scheduleRow);
export const toFiringRecord = parser('schedule_firings', firingRow);
export const toWebhookRecord = parser('webhooks', webhookRow);
export const toWebhookDeliveryRecord = parser('webhook_deliveries', deliveryRow);
export const toWebhookAttemptRecord = parser('webhook_attempts', attemptRow);

/** Why a webhook was disabled, from its last failure. */
export function disabledReasonOf(failures: number, lastError: string | null): string {
  return `disabled after ${failures} failed attempts in a row (last: ${lastError ?? 'no answer'})`;
}
