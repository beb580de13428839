/**
 * Wakes readers (event streams, A2A followers, workers waiting for input) when a session changes,
 * instead of each of them polling the store on a short timer. A wake is a hint: the reader still
 * reads the journal, so a lost wake costs one fallback poll, never an event.
 */

/** What changed: new events, a new input, an answered interaction. */
export type ChangeKind = 'events' | 'inputs' | 'answers';

/** Gets the session id of a committed change, or null for "anything may have changed" (after a reconnect). */
export type ChangeListener = (sessionId: string | null) => void;

export interface ChangeFeed {
  /** Calls `listener` after each committed change of `kind` until the returned function is called. */
  watch(kind: ChangeKind, listener: ChangeListener): () => void;
  /**
   * True while changes written by other processes and nodes reach `watch` too (PostgreSQL's
   * LISTEN connection is up), so readers may fall back to polling rarely. False when only this
   * process's own writes do (SQLite: workers are other processes), so readers keep their short poll.
   */
  readonly crossProcess: boolean;
}

/** The listeners of one process: every store reports its own committed writes here. */
export class LocalChangeFeed implements ChangeFeed {
  readonly #listeners = new Map<ChangeKind, Set<ChangeListener>>();

  get crossProcess(): boolean {
    return false;
  }

  watch(kind: ChangeKind, listener: ChangeListener): () => void {
    let listeners = this.#listeners.get(kind);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(kind, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /** Calls the listeners of `kind`; one listener's failure does not keep the others from waking. */
  emit(kind: ChangeKind, sessionId: string | null): void {
    for (const listener of [...(this.#listeners.get(kind) ?? [])]) {
      try {
        listener(sessionId);
      } catch {
        // The listener's own fault; the others are still woken.
      }
    }
  }

  /** The kinds somebody watches. */
  kinds(): ChangeKind[] {
    return [...this.#listeners.keys()];
  }
}
