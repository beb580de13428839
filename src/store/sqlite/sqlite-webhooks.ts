import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import {
  type AppendedEvent,
  deliveriesFor,
  type WebhookRecord,
  type WebhookStorage,
} from '../webhook-storage.js';
import {
  disabledReasonOf,
  toWebhookAttemptRecord,
  toWebhookDeliveryRecord,
  toWebhookRecord,
} from './automation-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Webhooks and their durable deliveries on SQLite. */
export function sqliteWebhooks(connection: SqliteConnection): WebhookStorage {
  const find = (id: string): WebhookRecord | null => {
    const row = connection.statement('SELECT * FROM webhooks WHERE id = ?').get(id);
    return row === undefined ? null : toWebhookRecord(row);
  };
  const require = (id: string): WebhookRecord => {
    const webhook = find(id);
    if (webhook === null) throw new NotFoundError(`webhook ${id} not found`, { webhookId: id });
    return webhook;
  };
  const delivery = (id: string) => {
    const row = connection.statement('SELECT * FROM webhook_deliveries WHERE id = ?').get(id);
    return row === undefined ? null : toWebhookDeliveryRecord(row);
  };
  return {
    async createWebhook(webhook) {
      return connection.write(() => {
        if (find(webhook.id) !== null)
          throw new ConflictError(`webhook ${webhook.id} exists`, { webhookId: webhook.id });
        connection
          .statement(
            `INSERT INTO webhooks (id, organization, session_id, url, events, secret_env, state,
               disabled_reason, failures, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, 'active', NULL, 0, ?, ?)`,
          )
          .run(
            webhook.id,
            webhook.organization,
            webhook.sessionId,
            webhook.url,
            JSON.stringify(webhook.events),
            webhook.secretEnv,
            webhook.now,
            webhook.now,
          );
        return require(webhook.id);
      });
    },

    async getWebhook(id) {
      return connection.read(() => find(id));
    },

    async listWebhooks(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            'SELECT * FROM webhooks WHERE (@organization IS NULL OR organization = @organization) ORDER BY seq',
          )
          .all({ organization: options.organization ?? null })
          .map(toWebhookRecord),
      );
    },

    async setWebhookState(options) {
      return connection.write(() => {
        require(options.id);
        connection
          .statement(
            `UPDATE webhooks SET state = ?, disabled_reason = ?,
               failures = CASE WHEN ? = 'active' THEN 0 ELSE failures END, updated_at = ? WHERE id = ?`,
          )
          .run(
            options.state,
            options.state === 'active' ? null : options.reason,
            options.state,
            options.now,
            options.id,
          );
        return require(options.id);
      });
    },

    async removeWebhook(id) {
      return connection.write(() => {
        connection
          .statement(
            'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)',
          )
          .run(id);
        connection.statement('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(id);
        return connection.statement('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
      });
    },

    async claimWebhookDeliveries(options) {
      return connection.write(() =>
        connection
          .statement(
            `UPDATE webhook_deliveries SET claimed_until = @until
             WHERE id IN (
               SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
               WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND w.state = 'active'
                 AND (d.claimed_until IS NULL OR d.claimed_until <= @now)
               ORDER BY d.seq LIMIT @limit)
             RETURNING *`,
          )
          .all({ now: options.now, until: options.now + options.leaseMs, limit: options.limit })
          .map(toWebhookDeliveryRecord)
          .sort((a, b) => a.createdAt - b.createdAt || a.cursor - b.cursor),
      );
    },

    async recordWebhookAttempt(options) {
      return connection.write(() => {
        const current = delivery(options.deliveryId);
        if (current === null)
          throw new NotFoundError(`webhook delivery ${options.deliveryId} not found`, {
            deliveryId: options.deliveryId,
          });
        const attempt = current.attempts + 1;
        connection
          .statement(
            `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, ok, error)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            current.id,
            attempt,
            options.startedAt,
            Math.round(options.durationMs),
            options.status,
            options.ok ? 1 : 0,
            options.error,
          );
        const state = options.ok ? 'delivered' : options.retryAt === null ? 'failed' : 'pending';
        connection
          .statement(
            `UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, claimed_until = NULL,
               last_error = ?, delivered_at = ? WHERE id = ?`,
          )
          .run(
            state,
            attempt,
            options.retryAt ?? current.nextAttemptAt,
            options.ok ? null : options.error,
            options.ok ? options.now : null,
            current.id,
          );
        const webhook = require(current.webhookId);
        const failures = options.ok ? 0 : webhook.failures + 1;
        const disable = !options.ok && webhook.state === 'active' && failures >= options.disableAfter;
        connection
          .statement(
            `UPDATE webhooks SET failures = ?, state = ?, disabled_reason = ?, updated_at = ? WHERE id = ?`,
          )
          .run(
            failures,
            disable ? 'disabled' : webhook.state,
            disable ? disabledReasonOf(failures, options.error) : webhook.disabledReason,
            options.now,
            webhook.id,
          );
        return { delivery: delivery(current.id)!, webhook: require(webhook.id) };
      });
    },

    async listWebhookDeliveries(options) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?')
          .all(options.webhookId, Math.max(0, options.limit ?? 100))
          .map(toWebhookDeliveryRecord),
      );
    },

    async getWebhookDelivery(id) {
      return connection.read(() => delivery(id));
    },

    async listWebhookAttempts(deliveryId) {
      return connection.read(() =>
        connection
          .statement('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt')
          .all(deliveryId)
          .map(toWebhookAttemptRecord),
      );
    },
  };
}

/**
 * Queues the deliveries of freshly appended events, inside the append's transaction: an event
 * that is journaled is an event whose deliveries exist.
 */
export function queueSqliteDeliveries(
  connection: SqliteConnection,
  sessionId: string,
  events: readonly AppendedEvent[],
  now: number,
): void {
  const session = connection.statement('SELECT id, organization FROM sessions WHERE id = ?').get(sessionId) as
    | { id: string; organization: string | null }
    | undefined;
  if (session === undefined) return;
  const webhooks = connection
    .statement(
      `SELECT * FROM webhooks WHERE state = 'active'
       AND (session_id = @id OR (session_id IS NULL AND organization = @organization)) ORDER BY seq`,
    )
    .all({ id: session.id, organization: session.organization })
    .map(toWebhookRecord);
  if (webhooks.length === 0) return;
  const insert = connection.statement(
    `INSERT INTO webhook_deliveries (id, webhook_id, session_id, cursor, event_type, payload, state, attempts,
       next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (webhook_id, session_id, cursor) DO NOTHING`,
  );
  for (const queued of deliveriesFor({ session, webhooks, events, now, newId: randomUUID }))
    insert.run(queued.id, queued.webhookId, sessionId, queued.cursor, queued.type, queued.payload, now, now);
}
