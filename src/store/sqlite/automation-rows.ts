import * as v from 'valibot';
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
import { integer, jsonText, millis, parser } from './rows.js';

/* Rows of the schedule and webhook tables, checked on read like the rows in rows.ts (both stores). */

const target = v.union([
  v.strictObject({ kind: v.literal('role'), role: v.string() }),
  v.strictObject({ kind: v.literal('channel'), channel: v.string() }),
]);

const scheduleRow = v.pipe(
  v.object({
    id: v.string(),
    organization: v.string(),
    cron: v.string(),
    timezone: v.string(),
    target: jsonText(target),
    prompt: v.string(),
    cwd: v.nullable(v.string()),
    missed: v.picklist(missedPolicies),
    state: v.picklist(scheduleStates),
    next_at: v.nullable(millis),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
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
  ),
);

const firingRow = v.pipe(
  v.object({
    schedule_id: v.string(),
    occurrence: millis,
    state: v.picklist(firingStates),
    missed: integer,
    session_id: v.nullable(v.string()),
    error: v.nullable(v.string()),
    claimed_at: millis,
    updated_at: millis,
  }),
  v.transform(
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
  ),
);

const webhookRow = v.pipe(
  v.object({
    id: v.string(),
    organization: v.string(),
    session_id: v.nullable(v.string()),
    url: v.string(),
    events: jsonText(v.array(v.picklist(webhookEventTypes))),
    secret_env: v.string(),
    state: v.picklist(webhookStates),
    disabled_reason: v.nullable(v.string()),
    failures: integer,
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
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
  ),
);

const payload = v.looseObject({
  id: v.string(),
  type: v.picklist(webhookEventTypes),
  webhookId: v.string(),
  sessionId: v.string(),
  organization: v.nullable(v.string()),
  cursor: v.number(),
  occurredAt: v.string(),
  data: v.unknown(),
});

const deliveryRow = v.pipe(
  v.object({
    id: v.string(),
    webhook_id: v.string(),
    session_id: v.string(),
    cursor: integer,
    event_type: v.picklist(webhookEventTypes),
    payload: jsonText(payload),
    state: v.picklist(webhookDeliveryStates),
    attempts: integer,
    next_attempt_at: millis,
    claimed_until: v.nullable(millis),
    last_error: v.nullable(v.string()),
    created_at: millis,
    delivered_at: v.nullable(millis),
  }),
  v.transform(
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
  ),
);

const attemptRow = v.pipe(
  v.object({
    delivery_id: v.string(),
    attempt: integer,
    started_at: millis,
    duration_ms: integer,
    status: v.nullable(integer),
    ok: v.union([v.literal(0), v.literal(1)]),
    error: v.nullable(v.string()),
  }),
  v.transform(
    (row): WebhookAttemptRecord => ({
      deliveryId: row.delivery_id,
      attempt: row.attempt,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      status: row.status,
      ok: row.ok === 1,
      error: row.error,
    }),
  ),
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
