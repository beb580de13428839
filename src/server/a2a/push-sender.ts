import type { StreamResponse, Task } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import {
  type PushNotificationSerializer,
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

/** The header that carries a notification's stable id: a receiver deduplicates by it. */
export const notificationIdHeader = 'X-Agentd-Notification-Id';

/** Statuses worth another try: the webhook is busy, down or timed out; any other 4xx is final. */
const retryableStatus = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * Posts one notification to one webhook, retrying network errors, timeouts, 408, 429 and 5xx with
 * bounded exponential backoff. The SDK's `DefaultPushNotificationSender` tries once and keeps
 * failures to itself, so this one does the sending, with the SDK's serializers (v1.0, or v0.3 for
 * configs registered over v0.3). Which events go out, in which order, is the PushDispatcher's.
 */
export class PushPoster {
  private readonly serializers: Record<string, PushNotificationSerializer> = {
    '1.0': new V1PushNotificationSerializer(),
    '0.3': new V03PushNotificationSerializer(),
  };
  private readonly closing = new AbortController();
  private readonly options: Required<Omit<PushSenderOptions, 'log'>> & Pick<PushSenderOptions, 'log'>;

  constructor(options: PushSenderOptions = {}) {
    this.options = {
      maxAttempts: options.maxAttempts ?? 6,
      initialDelayMs: options.initialDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      timeoutMs: options.timeoutMs ?? 5000,
      ...(options.log ? { log: options.log } : {}),
    };
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Stops retrying; a delivery in flight is abandoned. */
  close(): void {
    this.closing.abort();
  }

  /**
   * Resolves once the webhook took the notification or it was given up (`true` either way: it is
   * done with), or `false` when the poster closed first.
   */
  async post(options: {
    stored: StoredPushNotificationConfig;
    response: StreamResponse;
    task: Task | undefined;
    notificationId: string;
  }): Promise<boolean> {
    const { config } = options.stored;
    const serializer = this.serializers[options.stored.wireVersion] ?? this.serializers['1.0']!;
    const { body, contentType } = serializer.serialize(options.response, options.task);
    const headers: Record<string, string> = {
      'Content-Type': contentType,
      [notificationIdHeader]: options.notificationId,
    };
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
      if (this.closed) return false;
      try {
        const result = await fetch(config.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), this.closing.signal]),
        });
        await result.body?.cancel();
        if (result.ok) return true;
        outcome = `HTTP ${result.status}`;
        if (!retryableStatus(result.status)) break;
      } catch (error) {
        if (this.closed) return false;
        outcome = error instanceof Error ? error.message : String(error);
      }
      if (attempt < this.options.maxAttempts) await this.pause(backoffDelay(retry, attempt));
    }
    this.options.log?.(`push notification ${options.notificationId} to ${config.url} given up: ${outcome}`);
    return true;
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
