import { describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { type ContractContext, createTestSession, uniqueId } from './contract-context.js';

async function createTestWebhook(
  store: Store,
  overrides: { sessionId?: string | null; organization?: string } = {},
) {
  return store.createWebhook({
    id: uniqueId('webhook'),
    organization: overrides.organization ?? 'acme',
    sessionId: overrides.sessionId ?? null,
    url: 'http://127.0.0.1:9/hook',
    events: ['work.settled', 'session.failed'],
    secretEnv: 'HOOK_SECRET',
    now: 1_000,
  });
}

const settled = { type: 'work.settled', data: { executionId: 'e1' } };

export function describeWebhookContract(context: ContractContext): void {
  describe('webhooks', () => {
    it('appendEvents: queues one delivery per subscribed event and matching webhook, in the same append', async () => {
      const store = context.store();
      const session = await createTestSession(store, { organization: 'acme' });
      const other = await createTestSession(store, { organization: 'acme' });
      const organizationWide = await createTestWebhook(store);
      const onlyOther = await createTestWebhook(store, { sessionId: other.id });
      const elsewhere = await createTestWebhook(store, { organization: 'elsewhere' });
      await store.appendEvents(
        session.id,
        [
          { type: 'agent.message', data: { text: 'hi' } },
          settled,
          { type: 'execution.failed', data: { executionId: 'e1', error: { code: 'x', message: 'y' } } },
          { type: 'interaction.requested', data: {} },
        ],
        { now: 5_000 },
      );
      const deliveries = await store.listWebhookDeliveries({ webhookId: organizationWide.id });
      expect(deliveries.map((d) => [d.cursor, d.type, d.state, d.attempts])).toEqual([
        [3, 'session.failed', 'pending', 0],
        [2, 'work.settled', 'pending', 0],
      ]);
      expect(deliveries[1]!.payload).toEqual({
        id: deliveries[1]!.id,
        type: 'work.settled',
        webhookId: organizationWide.id,
        sessionId: session.id,
        organization: 'acme',
        cursor: 2,
        occurredAt: new Date(5_000).toISOString(),
        data: { executionId: 'e1' },
      });
      expect(await store.listWebhookDeliveries({ webhookId: onlyOther.id })).toEqual([]);
      expect(await store.listWebhookDeliveries({ webhookId: elsewhere.id })).toEqual([]);
      await store.appendEvents(other.id, [settled], { now: 6_000 });
      expect(await store.listWebhookDeliveries({ webhookId: onlyOther.id })).toHaveLength(1);
      // The other session is in the organization too.
      expect(await store.listWebhookDeliveries({ webhookId: organizationWide.id })).toHaveLength(3);
      // A disabled webhook gets no new deliveries.
      await store.setWebhookState({
        id: organizationWide.id,
        state: 'disabled',
        reason: 'by hand',
        now: 7_000,
      });
      await store.appendEvents(session.id, [settled], { now: 8_000 });
      expect(await store.listWebhookDeliveries({ webhookId: organizationWide.id })).toHaveLength(3);
    });

    it('claimWebhookDeliveries: a due delivery goes to one claimer until its lease lapses', async () => {
      const store = context.store();
      const session = await createTestSession(store, { organization: 'acme' });
      await createTestWebhook(store);
      await store.appendEvents(session.id, [settled], { now: 5_000 });
      const claims = await Promise.all([
        store.claimWebhookDeliveries({ now: 5_000, leaseMs: 1_000, limit: 10 }),
        store.claimWebhookDeliveries({ now: 5_000, leaseMs: 1_000, limit: 10 }),
      ]);
      expect(claims.map((claim) => claim.length).sort()).toEqual([0, 1]);
      expect(await store.claimWebhookDeliveries({ now: 5_500, leaseMs: 1_000, limit: 10 })).toEqual([]);
      const [again] = await store.claimWebhookDeliveries({ now: 6_000, leaseMs: 1_000, limit: 10 });
      expect(again?.claimedUntil).toBe(7_000);
    });

    it('recordWebhookAttempt: retries, delivery, giving up, and disabling after failures in a row', async () => {
      const store = context.store();
      const session = await createTestSession(store, { organization: 'acme' });
      const webhook = await createTestWebhook(store);
      await store.appendEvents(session.id, [settled, settled], { now: 5_000 });
      const [first, second] = await store.claimWebhookDeliveries({ now: 5_000, leaseMs: 1_000, limit: 10 });
      const failed = await store.recordWebhookAttempt({
        deliveryId: first!.id,
        startedAt: 5_000,
        durationMs: 12,
        status: 503,
        ok: false,
        error: 'HTTP 503',
        retryAt: 6_000,
        disableAfter: 3,
        now: 5_012,
      });
      expect(failed.delivery).toMatchObject({
        state: 'pending',
        attempts: 1,
        nextAttemptAt: 6_000,
        claimedUntil: null,
      });
      expect(failed.webhook).toMatchObject({ state: 'active', failures: 1 });
      expect(await store.claimWebhookDeliveries({ now: 5_100, leaseMs: 1_000, limit: 10 })).toEqual([]);
      const delivered = await store.recordWebhookAttempt({
        deliveryId: second!.id,
        startedAt: 5_000,
        durationMs: 3,
        status: 200,
        ok: true,
        error: null,
        retryAt: null,
        disableAfter: 3,
        now: 5_020,
      });
      expect(delivered.delivery).toMatchObject({ state: 'delivered', attempts: 1, deliveredAt: 5_020 });
      expect(delivered.webhook.failures).toBe(0);
      for (const now of [6_000, 7_000, 8_000]) {
        const [due] = await store.claimWebhookDeliveries({ now, leaseMs: 1_000, limit: 10 });
        await store.recordWebhookAttempt({
          deliveryId: due!.id,
          startedAt: now,
          durationMs: 1,
          status: null,
          ok: false,
          error: 'connection refused',
          retryAt: now === 8_000 ? null : now + 1_000,
          disableAfter: 3,
          now,
        });
      }
      const attempts = await store.listWebhookAttempts(first!.id);
      expect(attempts.map((a) => [a.attempt, a.status, a.ok])).toEqual([
        [1, 503, false],
        [2, null, false],
        [3, null, false],
        [4, null, false],
      ]);
      expect(await store.getWebhookDelivery(first!.id)).toMatchObject({ state: 'failed', attempts: 4 });
      const disabled = await store.getWebhook(webhook.id);
      expect(disabled).toMatchObject({ state: 'disabled', failures: 3 });
      expect(disabled?.disabledReason).toContain('connection refused');
      const enabled = await store.setWebhookState({
        id: webhook.id,
        state: 'active',
        reason: null,
        now: 9_000,
      });
      expect(enabled).toMatchObject({ state: 'active', failures: 0, disabledReason: null });
      expect(await store.removeWebhook(webhook.id)).toBe(true);
      expect(await store.getWebhookDelivery(first!.id)).toBeNull();
      expect(await store.listWebhookAttempts(first!.id)).toEqual([]);
      expect(await store.removeWebhook(webhook.id)).toBe(false);
    });
  });
}
