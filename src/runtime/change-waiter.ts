import type { ChangeKind } from '../store/change-feed.js';
import type { Store } from '../store/store.js';

export interface ChangeWaiterOptions {
  store: Store;
  kind: ChangeKind;
  sessionId: string;
  /** The poll when the store's feed does not reach across processes (SQLite; PostgreSQL while reconnecting). */
  pollMs: number;
  /**
   * The poll while the feed does reach across processes: only a safety net for a lost notification.
   * @default 1000
   */
  fallbackMs?: number;
}

/**
 * Waits for the next change of one session: woken by the store's change feed, with a poll as the
 * fallback. Watching starts at construction, so a change committed while the caller was reading
 * ends the next `wait` at once instead of being missed.
 */
export class ChangeWaiter {
  readonly #options: ChangeWaiterOptions;
  readonly #unwatch: () => void;
  #changed = false;
  #wake: (() => void) | undefined;

  constructor(options: ChangeWaiterOptions) {
    this.#options = options;
    this.#unwatch =
      options.store.changes?.watch(options.kind, (sessionId) => {
        if (sessionId !== null && sessionId !== options.sessionId) return;
        this.#changed = true;
        this.#wake?.();
      }) ?? (() => {});
  }

  /** Resolves on the next change (or one that came since the last wait), or after the poll interval. */
  async wait(signal?: AbortSignal): Promise<void> {
    if (!this.#changed) {
      const crossProcess = this.#options.store.changes?.crossProcess ?? false;
      const ms = crossProcess ? (this.#options.fallbackMs ?? 1000) : this.#options.pollMs;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        this.#wake = done;
      });
    }
    this.#changed = false;
  }

  close(): void {
    this.#unwatch();
    this.#wake?.();
  }
}
