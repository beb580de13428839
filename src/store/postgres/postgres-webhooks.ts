import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import {
  disabledReasonOf,
  toWebhookAttemptRecord,
  toWebhookDeliveryRecord,
  toWebhookRecord,
} from '../sqlite/automation-rows.js';
import {
  type AppendedEvent,
  deliveriesFor,
  type WebhookDeliveryRecord,
  type WebhookRecord,
  type WebhookStorage,
} from '../webhook-storage.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

async function find(executor: PostgresExecutor, id: string, lock = ''): Promise<WebhookRecord | null> {
  const row = await executor.row(`SELECT * FROM webhooks WHERE id = $1 ${lock}`, [id]);
  return row === undefined ? null : toWebhookRecord(row);
}

async function require(executor: PostgresExecutor, id: string, lock = ''): Promise<WebhookRecord> {
  const webhook = await find(executor, id, lock);
  if (webhook === null) throw new NotFoundError(`webhook ${id} not found`, { webhookId: id });
  return webhook;
}

async function delivery(
  executor: PostgresExecutor,
  id: string,
  lock = '',
): Promise<WebhookDeliveryRecord | null> {
  const row = await executor.row(`SELECT * FROM webhook_deliveries WHERE id = $1 ${lock}`, [id]);
  return row === undefined ? null : toWebhookDeliveryRecord(row);
}

/** Webhooks and their durable deliveries on PostgreSQL; nodes claim deliveries with SKIP LOCKED. */
export function postgresWebhooks(connection: PostgresConnection): WebhookStorage {
  return {
    async createWebhook(webhook) {
      return connection.write(async (executor) => {
        const inserted = await executor.run(
          `INSERT INTO webhooks (id, organization, session_id, url, events, secret_env, state, disabled_reason,
             failures, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'active', NULL, 0, $7, $7) ON CONFLICT (id) DO NOTHING`,
          [
            webhook.id,
            webhook.organization,
            webhook.sessionId,
            webhook.url,
            JSON.stringify(webhook.events),
            webhook.secretEnv,
            webhook.now,
          ],
        );
        if (inserted === 0)
          throw new ConflictError(`webhook ${webhook.id} exists`, { webhookId: webhook.id });
        return require(executor, webhook.id);
      });
    },

    async getWebhook(id) {
      return connection.read((executor) => find(executor, id));
    },

    async listWebhooks(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            'SELECT * FROM webhooks WHERE ($1::text IS NULL OR organization = $1) ORDER BY seq',
            [options.organization ?? null],
          )
        ).map(toWebhookRecord),
      );
    },

    async setWebhookState(options) {
      return connection.write(async (executor) => {
        const changed = await executor.run(
          `UPDATE webhooks SET state = $2, disabled_reason = $3,
             failures = CASE WHEN $2 = 'active' THEN 0 ELSE failures END, updated_at = $4 WHERE id = $1`,
          [options.id, options.state, options.state === 'active' ? null : options.reason, options.now],
        );
        if (changed === 0)
          throw new NotFoundError(`webhook ${options.id} not found`, { webhookId: options.id });
        return require(executor, options.id);
      });
    },

    async removeWebhook(id) {
      return connection.write(async (executor) => {
        await executor.run(
          'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1)',
          [id],
        );
        await executor.run('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [id]);
        return (await executor.run('DELETE FROM webhooks WHERE id = $1', [id])) > 0;
      });
    },

    async claimWebhookDeliveries(options) {
      return connection.write(async (executor) =>
        (
          await executor.rows(
            `UPDATE webhook_deliveries SET claimed_until = $2
             WHERE id IN (
               SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
               WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND w.state = 'active'
                 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
               ORDER BY d.seq LIMIT $3 FOR UPDATE OF d SKIP LOCKED)
             RETURNING *`,
            [options.now, options.now + options.leaseMs, options.limit],
          )
        )
          .map(toWebhookDeliveryRecord)
          .sort((a, b) => a.createdAt - b.createdAt || a.cursor - b.cursor),
      );
    },

    async recordWebhookAttempt(options) {
      return connection.write(async (executor) => {
        const current = await delivery(executor, options.deliveryId, 'FOR UPDATE');
        if (current === null)
          throw new NotFoundError(`webhook delivery ${options.deliveryId} not found`, {
            deliveryId: options.deliveryId,
          });
        const attempt = current.attempts + 1;
        await executor.run(
          `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, ok, error)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            current.id,
            attempt,
            options.startedAt,
            Math.round(options.durationMs),
            options.status,
            options.ok ? 1 : 0,
            options.error,
          ],
        );
        const state = options.ok ? 'delivered' : options.retryAt === null ? 'failed' : 'pending';
        await executor.run(
          `UPDATE webhook_deliveries SET state = $2, attempts = $3, next_attempt_at = $4, claimed_until = NULL,
             last_error = $5, delivered_at = $6 WHERE id = $1`,
          [
            current.id,
            state,
            attempt,
            options.retryAt ?? current.nextAttemptAt,
            options.ok ? null : options.error,
            options.ok ? options.now : null,
          ],
        );
        const webhook = await require(executor, current.webhookId, 'FOR UPDATE');
        const failures = options.ok ? 0 : webhook.failures + 1;
        const disable = !options.ok && webhook.state === 'active' && failures >= options.disableAfter;
        await executor.run(
          'UPDATE webhooks SET failures = $2, state = $3, disabled_reason = $4, updated_at = $5 WHERE id = $1',
          [
            webhook.id,
            failures,
            disable ? 'disabled' : webhook.state,
            disable ? disabledReasonOf(failures, options.error) : webhook.disabledReason,
            options.now,
          ],
        );
        return {
          delivery: (await delivery(executor, current.id))!,
          webhook: await require(executor, webhook.id),
        };
      });
    },

    async listWebhookDeliveries(options) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            'SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq DESC LIMIT $2',
            [options.webhookId, Math.max(0, options.limit ?? 100)],
          )
        ).map(toWebhookDeliveryRecord),
      );
    },

    async getWebhookDelivery(id) {
      return connection.read((executor) => delivery(executor, id));
    },

    async listWebhookAttempts(deliveryId) {
      return connection.read(async (executor) =>
        (
          await executor.rows('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [
            deliveryId,
          ])
        ).map(toWebhookAttemptRecord),
      );
    },
  };
}

/** Queues the deliveries of freshly appended events inside the append's transaction (see SQLite's). */
export async function queuePostgresDeliveries(
  executor: PostgresExecutor,
  sessionId: string,
  events: readonly AppendedEvent[],
  now: number,
): Promise<void> {
  const session = (await executor.row('SELECT id, organization FROM sessions WHERE id = $1', [sessionId])) as
    | { id: string; organization: string | null }
    | undefined;
  if (session === undefined) return;
  const webhooks = (
    await executor.rows(
      `SELECT * FROM webhooks WHERE state = 'active'
       AND (session_id = $1 OR (session_id IS NULL AND organization = $2)) ORDER BY seq`,
      [session.id, session.organization],
    )
  ).map(toWebhookRecord);
  if (webhooks.length === 0) return;
  for (const queued of deliveriesFor({ session, webhooks, events, now, newId: randomUUID }))
    await executor.run(
      `INSERT INTO webhook_deliveries (id, webhook_id, session_id, cursor, event_type, payload, state, attempts,
         next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7) ON CONFLICT (webhook_id, session_id, cursor) DO NOTHING`,
      [queued.id, queued.webhookId, sessionId, queued.cursor, queued.type, queued.payload, now],
    );
}
