import pg from 'pg';
import type { PostgresConnection } from './postgres-connection.js';

/** What a wake is about: new events, a new input, an answered interaction. */
export type WakeKind = 'events' | 'inputs' | 'answers';

const channelOf: Record<WakeKind, string> = {
  events: 'agentd_events',
  inputs: 'agentd_inputs',
  answers: 'agentd_answers',
};
const kindOf = new Map(Object.entries(channelOf).map(([kind, channel]) => [channel, kind as WakeKind]));

/** A listener gets the session id, or null for "anything may have changed" (after a reconnect). */
export type WakeListener = (sessionId: string | null) => void;

/**
 * Wakes readers (event streams, A2A followers, workers waiting for input) when a session changes,
 * on this node at once and on every other node through LISTEN/NOTIFY. NOTIFY runs after the write
 * has committed, outside its transaction, and is batched: every session touched within one tick
 * goes out in one statement. A wake is only a hint: a reader still reads the journal, so a lost
 * NOTIFY costs one poll of the reader's fallback interval, never an event.
 *
 * The LISTEN connection is opened on the first `subscribe`. When it breaks (the server restarted),
 * it is opened again with a growing delay, LISTENs again, and wakes every listener once, since
 * notifications sent meanwhile are gone.
 */
export class PostgresNotifier {
  readonly #connection: PostgresConnection;
  readonly #listeners = new Map<WakeKind, Set<WakeListener>>();
  #pending = new Map<WakeKind, Set<string>>();
  #flushScheduled = false;
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #retryTimer: NodeJS.Timeout | undefined;
  /** True while a LISTEN connection is up: readers may then poll less often. */
  listening = false;

  constructor(connection: PostgresConnection) {
    this.#connection = connection;
  }

  /** Reports a committed change: wakes this node's listeners now and the other nodes' soon. */
  notify(kind: WakeKind, sessionId: string): void {
    this.#deliver(kind, sessionId);
    let sessions = this.#pending.get(kind);
    if (sessions === undefined) {
      sessions = new Set();
      this.#pending.set(kind, sessions);
    }
    sessions.add(sessionId);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => void this.#flush());
    }
  }

  /** Calls `listener` on every wake of `kind` until the returned function is called. */
  subscribe(kind: WakeKind, listener: WakeListener): () => void {
    let listeners = this.#listeners.get(kind);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(kind, listeners);
    }
    listeners.add(listener);
    void this.#ensureListening();
    return () => {
      listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    await this.#flush();
    const client = this.#client;
    this.#client = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  #deliver(kind: WakeKind, sessionId: string | null): void {
    for (const listener of this.#listeners.get(kind) ?? []) {
      try {
        listener(sessionId);
      } catch {
        // A listener's failure is its own; the others are still woken.
      }
    }
  }

  async #flush(): Promise<void> {
    this.#flushScheduled = false;
    const pending = this.#pending;
    this.#pending = new Map();
    const channels: string[] = [];
    const sessions: string[] = [];
    for (const [kind, ids] of pending) {
      for (const id of ids) {
        channels.push(channelOf[kind]);
        sessions.push(id);
      }
    }
    if (channels.length === 0) {
      return;
    }
    try {
      await this.#connection.pool.query(
        'SELECT pg_notify(c, s) FROM unnest($1::text[], $2::text[]) AS n(c, s)',
        [channels, sessions],
      );
    } catch {
      // The database is down: the change is committed, and readers of other nodes find it by polling.
    }
  }

  async #ensureListening(): Promise<void> {
    if (this.#closed || this.#client !== undefined || this.#connecting !== undefined) {
      return;
    }
    this.#connecting = this.#listen(0).finally(() => {
      this.#connecting = undefined;
    });
    await this.#connecting;
  }

  async #listen(attempt: number): Promise<void> {
    const client = new pg.Client({ ...this.#connection.clientConfig });
    try {
      await client.connect();
      for (const channel of Object.values(channelOf)) {
        await client.query(`LISTEN ${channel}`);
      }
    } catch {
      await client.end().catch(() => {});
      this.#scheduleRetry(attempt + 1);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    client.on('notification', (message) => {
      const kind = kindOf.get(message.channel);
      if (kind !== undefined) {
        this.#deliver(kind, message.payload ?? null);
      }
    });
    const lost = () => {
      if (this.#client !== client) {
        return;
      }
      this.#client = undefined;
      this.listening = false;
      void client.end().catch(() => {});
      this.#scheduleRetry(0);
    };
    client.on('error', lost);
    client.on('end', lost);
    this.#client = client;
    this.listening = true;
    // Whatever was notified while no connection listened is lost: everyone looks once.
    if (attempt > 0) {
      for (const kind of this.#listeners.keys()) {
        this.#deliver(kind, null);
      }
    }
  }

  #scheduleRetry(attempt: number): void {
    if (this.#closed) {
      return;
    }
    const delay = Math.min(5_000, 100 * 2 ** Math.min(attempt, 6));
    this.#retryTimer = setTimeout(() => {
      this.#connecting = this.#listen(Math.max(1, attempt)).finally(() => {
        this.#connecting = undefined;
      });
    }, delay);
    this.#retryTimer.unref();
  }
}
