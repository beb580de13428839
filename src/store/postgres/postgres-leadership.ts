import pg from 'pg';
import type { PostgresConnection } from './postgres-connection.js';

export interface PostgresLeadershipOptions {
  /** Names the duty, such as `reconcile`: one leader per duty and schema. */
  duty: string;
  /**
   * How often a follower tries to become the leader, and a lost connection is opened again, in ms.
   * @default 2000
   */
  retryMs?: number;
}

/**
 * Leadership of one cluster-wide duty (orphan reconcile, A2A task adoption) through a session-level
 * advisory lock on a connection of its own: the node whose connection holds the lock is the leader,
 * and stays so exactly as long as that connection lives. If the leader dies or is cut off, the
 * server drops its session and the lock with it, and another node's next try takes it. No clock is
 * involved.
 */
export class PostgresLeadership {
  readonly #connection: PostgresConnection;
  readonly #options: PostgresLeadershipOptions;
  #client: pg.Client | undefined;
  #leader = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #trying: Promise<void> | undefined;

  constructor(connection: PostgresConnection, options: PostgresLeadershipOptions) {
    this.#connection = connection;
    this.#options = options;
    this.#trying = this.#try();
  }

  /** True while this node holds the duty. */
  get leader(): boolean {
    return this.#leader;
  }

  /** Resolves once the first attempt has been made (leader or not). */
  async ready(): Promise<void> {
    await this.#trying;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#trying;
    this.#leader = false;
    const client = this.#client;
    this.#client = undefined;
    // Ending the session releases the lock.
    await client?.end().catch(() => {});
  }

  async #try(): Promise<void> {
    try {
      if (this.#client === undefined) {
        const client = new pg.Client({ ...this.#connection.clientConfig });
        client.on('error', () => this.#lost(client));
        client.on('end', () => this.#lost(client));
        await client.connect();
        this.#client = client;
      }
      const result = await this.#client.query(
        'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS taken',
        [`agentd.duty.${this.#connection.schema}`, this.#options.duty],
      );
      this.#leader = result.rows[0]?.taken === true;
    } catch {
      const client = this.#client;
      if (client !== undefined) this.#lost(client);
    }
    this.#schedule();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#leader = false;
    void client.end().catch(() => {});
  }

  #schedule(): void {
    // A leader keeps its lock while its connection lives; it only checks that the connection does.
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#trying = this.#leader && this.#client !== undefined ? this.#check() : this.#try();
    }, this.#options.retryMs ?? 2000);
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    try {
      await this.#client?.query('SELECT 1');
    } catch {
      const client = this.#client;
      if (client !== undefined) this.#lost(client);
    }
    this.#schedule();
  }
}
