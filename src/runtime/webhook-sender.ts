import type { Store } from '../store/store.js';
import type { WebhookDeliveryRecord } from '../store/webhook-storage.js';
import { signWebhook, webhookHeaders } from './webhook-signature.js';

export interface WebhookSendOptions {
  /** How often due deliveries are looked for, in ms. @default 1000 */
  pollMs?: number;
  /** How long one attempt may take before it counts as failed, in ms. @default 10000 */
  timeoutMs?: number;
  /** The first retry's delay, doubled for each further one, in ms. @default 1000 */
  backoffMs?: number;
  /** The longest delay between attempts, in ms. @default 600000 (10 minutes) */
  maxBackoffMs?: number;
  /** A delivery is given up after this many attempts. @default 12 */
  maxAttempts?: number;
  /** A webhook is disabled after this many failed attempts in a row (any of its deliveries). @default 20 */
  disableAfter?: number;
  /** Deliveries taken per poll. @default 50 */
  batch?: number;
}

/** The delay before attempt `attempt + 1`, with ±20% jitter so that receivers are not hit in step. */
export function backoffDelay(attempt: number, options: { backoffMs: number; maxBackoffMs: number }): number {
  const base = Math.min(options.maxBackoffMs, options.backoffMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/**
 * Sends the store's due webhook deliveries. Any number of nodes may run one: each delivery is
 * claimed (with a lease longer than an attempt) before it is sent, and every attempt and its
 * outcome is written back in one transaction, so retries outlive the process that failed.
 */
export class WebhookSender {
  readonly #store: Store;
  readonly #env: Record<string, string | undefined>;
  readonly #clock: () => number;
  readonly #options: Required<WebhookSendOptions>;
  readonly #log: ((line: string) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: {
    store: Store;
    env: Record<string, string | undefined>;
    clock: () => number;
    send?: WebhookSendOptions;
    log?: (line: string) => void;
  }) {
    this.#store = options.store;
    this.#env = options.env;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#options = {
      pollMs: 1000,
      timeoutMs: 10_000,
      backoffMs: 1000,
      maxBackoffMs: 600_000,
      maxAttempts: 12,
      disableAfter: 20,
      batch: 50,
      ...options.send,
    };
  }

  start(): this {
    const poll = () => {
      if (this.#closed) return;
      this.#running = this.sendDue()
        .catch((error: unknown) => this.#log?.(`webhooks: ${String(error)}`))
        .finally(() => {
          if (this.#closed) return;
          this.#timer = setTimeout(poll, this.#options.pollMs);
          this.#timer.unref();
        });
    };
    poll();
    return this;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Claims and sends what is due now; deliveries of one webhook go in order, webhooks in parallel. */
  async sendDue(): Promise<number> {
    const due = await this.#store.claimWebhookDeliveries({
      now: this.#clock(),
      leaseMs: this.#options.timeoutMs * 3,
      limit: this.#options.batch,
    });
    const byWebhook = new Map<string, WebhookDeliveryRecord[]>();
    for (const delivery of due)
      byWebhook.set(delivery.webhookId, [...(byWebhook.get(delivery.webhookId) ?? []), delivery]);
    await Promise.all(
      [...byWebhook.values()].map(async (deliveries) => {
        for (const delivery of deliveries) if (!(await this.#attempt(delivery))) break;
      }),
    );
    return due.length;
  }

  /** One attempt, recorded; false when the webhook is now disabled (its other claims lapse). */
  async #attempt(delivery: WebhookDeliveryRecord): Promise<boolean> {
    const webhook = await this.#store.getWebhook(delivery.webhookId);
    if (webhook?.state !== 'active') return false;
    const startedAt = this.#clock();
    const began = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    const secret = this.#env[webhook.secretEnv];
    if (secret === undefined || secret === '') {
      error = `the signing secret's variable ${webhook.secretEnv} is not set on this node`;
    } else {
      const body = JSON.stringify(delivery.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'agentd-webhooks',
            [webhookHeaders.id]: delivery.id,
            [webhookHeaders.timestamp]: String(timestamp),
            [webhookHeaders.signature]: signWebhook({ secret, id: delivery.id, timestamp, body }),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#options.timeoutMs),
        });
        status = response.status;
        await response.body?.cancel().catch(() => {});
        if (status < 200 || status > 299) error = `HTTP ${status}`;
      } catch (cause) {
        error = describeFailure(cause);
      }
    }
    const ok = error === null;
    const attempts = delivery.attempts + 1;
    const now = this.#clock();
    const recorded = await this.#store.recordWebhookAttempt({
      deliveryId: delivery.id,
      startedAt,
      durationMs: performance.now() - began,
      status,
      ok,
      error,
      retryAt:
        ok || attempts >= this.#options.maxAttempts ? null : now + backoffDelay(attempts, this.#options),
      disableAfter: this.#options.disableAfter,
      now,
    });
    return recorded.webhook.state === 'active';
  }
}

/** A fetch failure as one line: the network error's code (ECONNREFUSED), or that it timed out. */
function describeFailure(cause: unknown): string {
  if (cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError'))
    return 'timed out';
  const inner =
    cause instanceof Error ? (cause.cause as { code?: string; message?: string } | undefined) : undefined;
  if (inner?.code) return inner.code;
  return cause instanceof Error ? (inner?.message ?? cause.message) : String(cause);
}
