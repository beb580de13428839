/**
 * Webhooks: subscriptions to a session's or an organization's events, and their deliveries, kept
 * as rows so that retries survive restarts and any node may send them
 * (docs/decisions/0161-webhook-deliveries.md). All times are epoch milliseconds.
 */

/** The events a webhook may subscribe to. `session.failed` is the journal's `execution.failed`. */
export const webhookEventTypes = [
  'interaction.requested',
  'interaction.answered',
  'work.settled',
  'seed.finished',
  'session.failed',
  'session.archived',
  'budget.exceeded',
  'schedule.fired',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The webhook event a journal event is delivered as, or undefined when none is. */
export function webhookEventTypeOf(journalType: string): WebhookEventType | undefined {
  if (journalType === 'execution.failed') return 'session.failed';
  return (webhookEventTypes as readonly string[]).includes(journalType)
    ? (journalType as WebhookEventType)
    : undefined;
}

export const webhookStates = ['active', 'disabled'] as const;
export type WebhookState = (typeof webhookStates)[number];

export interface WebhookRecord {
  id: string;
  organization: string;
  /** Only this session's events; null: every session of the organization. */
  sessionId: string | null;
  url: string;
  events: WebhookEventType[];
  /** The name of the environment variable holding the signing secret (never the secret). */
  secretEnv: string;
  state: WebhookState;
  /** Why it was disabled; null while active. */
  disabledReason: string | null;
  /** Failed attempts in a row, across its deliveries; 0 after any success. */
  failures: number;
  createdAt: number;
  updatedAt: number;
}

/** `pending` (to be sent, or retried at `nextAttemptAt`), `delivered` (a 2xx), `failed` (gave up). */
export const webhookDeliveryStates = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryState = (typeof webhookDeliveryStates)[number];

/** The JSON body of a delivery; `id` is the delivery's id, the same on every attempt. */
export interface WebhookPayload {
  id: string;
  type: WebhookEventType;
  webhookId: string;
  sessionId: string;
  organization: string | null;
  cursor: number;
  /** ISO 8601 time the event was journaled. */
  occurredAt: string;
  /** The journal event's data. */
  data: unknown;
}

export interface WebhookDeliveryRecord {
  id: string;
  webhookId: string;
  sessionId: string;
  cursor: number;
  type: WebhookEventType;
  payload: WebhookPayload;
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: number;
  /** Until when a node sending it holds it; null when nobody does. */
  claimedUntil: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

export interface WebhookAttemptRecord {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  startedAt: number;
  durationMs: number;
  /** The receiver's HTTP status; null when none came (refused, timed out, not sent). */
  status: number | null;
  ok: boolean;
  error: string | null;
}

export interface WebhookStorage {
  /** `conflict` when the id is taken. */
  createWebhook(
    webhook: Omit<WebhookRecord, 'state' | 'disabledReason' | 'failures' | 'createdAt' | 'updatedAt'> & {
      now: number;
    },
  ): Promise<WebhookRecord>;
  getWebhook(id: string): Promise<WebhookRecord | null>;
  /** In creation order. */
  listWebhooks(options?: { organization?: string }): Promise<WebhookRecord[]>;
  /** Disables (with a reason) or enables (failures back to 0). `not_found` when missing. */
  setWebhookState(options: {
    id: string;
    state: WebhookState;
    reason: string | null;
    now: number;
  }): Promise<WebhookRecord>;
  /** Removes the webhook with its deliveries and attempts; false when there was none. */
  removeWebhook(id: string): Promise<boolean>;
  /**
   * Takes up to `limit` pending deliveries of active webhooks that are due at `now` and that no
   * other node holds, and holds them until `now + leaseMs`. Oldest first.
   */
  claimWebhookDeliveries(options: {
    now: number;
    leaseMs: number;
    limit: number;
  }): Promise<WebhookDeliveryRecord[]>;
  /**
   * Records an attempt and what follows in one transaction: delivered (the webhook's failures back
   * to 0), retried at `retryAt`, or given up (`retryAt` null). After a failure, a webhook with
   * `disableAfter` failures in a row is disabled with a reason. `not_found` for a missing delivery.
   */
  recordWebhookAttempt(options: {
    deliveryId: string;
    startedAt: number;
    durationMs: number;
    status: number | null;
    ok: boolean;
    error: string | null;
    retryAt: number | null;
    disableAfter: number;
    now: number;
  }): Promise<{ delivery: WebhookDeliveryRecord; webhook: WebhookRecord }>;
  /** Newest first. @default limit 100 */
  listWebhookDeliveries(options: { webhookId: string; limit?: number }): Promise<WebhookDeliveryRecord[]>;
  getWebhookDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** Oldest first. */
  listWebhookAttempts(deliveryId: string): Promise<WebhookAttemptRecord[]>;
}

/** What a store needs to know of an appended event to queue its deliveries. */
export interface AppendedEvent {
  cursor: number;
  type: string;
  data: string;
}

/**
 * The deliveries an append queues, in the appending transaction: for each event that a matching
 * active webhook subscribes to. Both stores call this with the webhooks they found.
 */
export function deliveriesFor(options: {
  session: { id: string; organization: string | null };
  webhooks: readonly WebhookRecord[];
  events: readonly AppendedEvent[];
  now: number;
  newId: () => string;
}): Array<{ id: string; webhookId: string; cursor: number; type: WebhookEventType; payload: string }> {
  const queued: Array<{
    id: string;
    webhookId: string;
    cursor: number;
    type: WebhookEventType;
    payload: string;
  }> = [];
  for (const event of options.events) {
    const type = webhookEventTypeOf(event.type);
    if (type === undefined) continue;
    for (const webhook of options.webhooks) {
      if (!webhook.events.includes(type)) continue;
      const id = options.newId();
      const payload: WebhookPayload = {
        id,
        type,
        webhookId: webhook.id,
        sessionId: options.session.id,
        organization: options.session.organization,
        cursor: event.cursor,
        occurredAt: new Date(options.now).toISOString(),
        data: JSON.parse(event.data),
      };
      queued.push({
        id,
        webhookId: webhook.id,
        cursor: event.cursor,
        type,
        payload: JSON.stringify(payload),
      });
    }
  }
  return queued;
}

/** Whether any of the events could be delivered to a webhook (so the store need not look). */
export function anyWebhookEvent(events: readonly { type: string }[]): boolean {
  return events.some((event) => webhookEventTypeOf(event.type) !== undefined);
}
