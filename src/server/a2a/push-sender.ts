import type { StreamResponse, Task } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import {
  type PushNotificationSender,
  type PushNotificationSerializer,
  type PushNotificationStore,
  type ServerCallContext,
  type StoredPushNotificationConfig,
  V1PushNotificationSerializer,
} from '@a2a-js/sdk/server';
import { backoffDelay } from '../../backends/claude/backoff.js';

export interface PushSenderOptions {
  /** Attempts per notification and webhook, the first included. @default 6 */
  maxAttempts?: number;
  /** Delay before the first retry; it doubles (with jitter) up to `maxDelayMs`. @default 500 */
  initialDelayMs?: number;
  /** @default 30000 */
  maxDelayMs?: number;
  /** Limit of one POST. @default 5000 */
  timeoutMs?: number;
  /** Where deliveries given up are reported. @default none */
  log?: (line: string) => void;
}

/** Statuses worth another try: the webhook is busy, down or timed out; any other 4xx is final. */
const retryableStatus = (status: number) => status >= 500 || status === 429 || status === 408;

function taskIdOf(response: StreamResponse): string {
  const payload = response.payload;
  if (!payload) return '';
  return payload.$case === 'task' ? payload.value.id : payload.value.taskId;
}

/**
 * Posts each task event to the task's webhooks, at least once: failed or refused deliveries are
 * retried with bounded exponential backoff. Events of one task reach one webhook in order. The
 * SDK's `DefaultPushNotificationSender` tries once and keeps failures to itself, so this one does
 * the sending, with the SDK's serializers (v1.0, or v0.3 for configs registered over v0.3).
 */
export class RetryingPushNotificationSender implements PushNotificationSender {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly serializers: Record<string, PushNotificationSerializer> = {
    '1.0': new V1PushNotificationSerializer(),
    '0.3': new V03PushNotificationSerializer(),
  };
  private readonly closing = new AbortController();
  private readonly options: Required<Omit<PushSenderOptions, 'log'>> & Pick<PushSenderOptions, 'log'>;

  constructor(
    private readonly store: PushNotificationStore,
    options: PushSenderOptions = {},
  ) {
    this.options = {
      maxAttempts: options.maxAttempts ?? 6,
      initialDelayMs: options.initialDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      timeoutMs: options.timeoutMs ?? 5000,
      ...(options.log ? { log: options.log } : {}),
    };
  }

  /** Queues the event for every webhook of its task; resolves once queued, not once delivered. */
  async send(response: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(response);
    if (!taskId || this.closing.signal.aborted) return;
    const configs = this.store.loadWithMetadata
      ? await this.store.loadWithMetadata(taskId, context)
      : (await this.store.load(taskId, context)).map((config) => ({ config, wireVersion: '1.0' }));
    for (const stored of configs) {
      const key = `${taskId}\u0000${stored.config.id}`;
      const next = (this.chains.get(key) ?? Promise.resolve()).then(() =>
        this.deliver(response, stored, task),
      );
      this.chains.set(key, next);
      void next.finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    }
  }

  /** Resolves when everything handed over so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }

  /** Stops retrying; deliveries in flight are abandoned. */
  close(): void {
    this.closing.abort();
  }

  private async deliver(response: StreamResponse, stored: StoredPushNotificationConfig, task?: Task) {
    const { config } = stored;
    const serializer = this.serializers[stored.wireVersion] ?? this.serializers['1.0']!;
    const { body, contentType } = serializer.serialize(response, task);
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (config.authentication?.scheme && config.authentication.credentials)
      headers.Authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
    else if (config.token) headers['X-A2A-Notification-Token'] = config.token;
    const retry = {
      maxRetries: this.options.maxAttempts - 1,
      initialDelayMs: this.options.initialDelayMs,
      maxDelayMs: this.options.maxDelayMs,
    };
    let outcome = '';
    for (let attempt = 1; attempt <= this.options.maxAttempts; attempt++) {
      if (this.closing.signal.aborted) return;
      try {
        const result = await fetch(config.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), this.closing.signal]),
        });
        await result.body?.cancel();
        if (result.ok) return;
        outcome = `HTTP ${result.status}`;
        if (!retryableStatus(result.status)) break;
      } catch (error) {
        outcome = error instanceof Error ? error.message : String(error);
      }
      if (attempt < this.options.maxAttempts) await this.pause(backoffDelay(retry, attempt));
    }
    this.options.log?.(
      `push notification for task ${taskIdOf(response)} to ${config.url} given up: ${outcome}`,
    );
  }

  private pause(ms: number): Promise<void> {
    const signal = this.closing.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
