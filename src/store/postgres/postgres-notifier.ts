import pg from 'pg';
import { type ChangeFeed, type ChangeKind, type ChangeListener, LocalChangeFeed } from '../change-feed.js';
import type { PostgresConnection } from './postgres-connection.js';

const channelOf: Record<ChangeKind, string> = {
  events: 'agentd_events',
  inputs: 'agentd_inputs',
  answers: 'agentd_answers',
};
const kindOf = new Map(Object.entries(channelOf).map(([kind, channel]) => [channel, kind as ChangeKind]));

/**
 * The change feed across nodes: this node's writes wake its readers at once, and every node's
 * through LISTEN/NOTIFY. NOTIFY runs after the write has committed, outside its transaction, and is
 * batched: every session changed within one tick goes out in one statement.
 *
 * The LISTEN connection is opened on the first `watch`. When it breaks (the server restarted), it
 * is opened again with a growing delay, LISTENs again, and wakes every listener once, since
 * notifications sent meanwhile are gone. While it is down, `crossProcess` is false and readers
 * poll at their short interval.
 */
export class PostgresNotifier implements ChangeFeed {
  readonly #connection: PostgresConnection;
  readonly #local = new LocalChangeFeed();
  #pending = new Map<ChangeKind, Set<string>>();
  #flushScheduled = false;
  #client: pg.Client | undefined;
  #connecting = false;
  #closed = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #listening = false;

  constructor(connection: PostgresConnection) {
    this.#connection = connection;
  }

  get crossProcess(): boolean {
    return this.#listening;
  }

  /** Reports a committed change: wakes this node's listeners now and the other nodes' soon. */
  notify(kind: ChangeKind, sessionId: string): void {
    this.#local.emit(kind, sessionId);
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

  watch(kind: ChangeKind, listener: ChangeListener): () => void {
    const unwatch = this.#local.watch(kind, listener);
    if (!this.#closed && this.#client === undefined && !this.#connecting) {
      void this.#listen(0);
    }
    return unwatch;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    await this.#flush();
    const client = this.#client;
    this.#client = undefined;
    this.#listening = false;
    await client?.end().catch(() => {});
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
      // The database is down: the change is committed, and other nodes' readers find it by polling.
    }
  }

  async #listen(attempt: number): Promise<void> {
    this.#connecting = true;
    const client = new pg.Client({ ...this.#connection.clientConfig });
    // Until connected, a failure is handled below; afterwards by `lost`.
    client.on('error', () => {});
    try {
      await client.connect();
      for (const channel of Object.values(channelOf)) {
        await client.query(`LISTEN ${channel}`);
      }
    } catch {
      this.#connecting = false;
      await client.end().catch(() => {});
      this.#scheduleRetry(attempt + 1);
      return;
    }
    this.#connecting = false;
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    client.on('notification', (message) => {
      const kind = kindOf.get(message.channel);
      if (kind !== undefined) {
        this.#local.emit(kind, message.payload ?? null);
      }
    });
    const lost = () => {
      if (this.#client !== client) {
        return;
      }
      this.#client = undefined;
      this.#listening = false;
      void client.end().catch(() => {});
      this.#scheduleRetry(1);
    };
    client.on('error', lost);
    client.on('end', lost);
    this.#client = client;
    this.#listening = true;
    // Whatever was notified while no connection listened is lost: everyone looks once.
    if (attempt > 0) {
      for (const kind of this.#local.kinds()) {
        this.#local.emit(kind, null);
      }
    }
  }

  #scheduleRetry(attempt: number): void {
    if (this.#closed) {
      return;
    }
    const delay = Math.min(5_000, 100 * 2 ** Math.min(attempt, 6));
    this.#retryTimer = setTimeout(() => void this.#listen(attempt), delay);
    this.#retryTimer.unref();
  }
}
