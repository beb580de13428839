import pg from 'pg';
import { StoreError } from '../../errors/agentd-error.js';
import { errorCode, retryableStates, toStoreError } from './postgres-errors.js';

export type Row = Record<string, unknown>;

/** What a store part runs statements through: the pool (one statement) or one transaction's client. */
export interface PostgresExecutor {
  /** All rows of the statement. */
  rows(sql: string, values?: unknown[]): Promise<Row[]>;
  /** The first row, or undefined. */
  row(sql: string, values?: unknown[]): Promise<Row | undefined>;
  /** Runs the statement; the number of rows it changed. */
  run(sql: string, values?: unknown[]): Promise<number>;
}

/** BIGINT (int8) and NUMERIC come back as numbers: every one agentd stores fits in a double. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) {
      return (value: string) => Number(value);
    }
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresConnectionOptions {
  url: string;
  /** The schema holding agentd's tables; created when missing. */
  schema: string;
  /** @default 10 */
  poolSize?: number;
  /** @default 5000 */
  connectTimeoutMs?: number;
}

/**
 * A pool of connections to one database, and the wrappers every store operation goes through, so
 * pg failures always surface as `StoreError`s (`store_unavailable` while the server is down). A
 * broken connection is dropped by the pool and the next call opens a new one: the store recovers
 * by itself when the server comes back.
 */
export class PostgresConnection {
  readonly description: string;
  readonly schema: string;
  readonly pool: pg.Pool;
  /** How to open one more connection like the pool's (the notifier's LISTEN connection). */
  readonly clientConfig: pg.ClientConfig;
  #closed = false;

  constructor(options: PostgresConnectionOptions) {
    this.schema = options.schema;
    this.description = describeUrl(options.url, options.schema);
    this.clientConfig = {
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      options: `-c search_path=${quoteIdentifier(options.schema)}`,
      application_name: 'agentd',
      types,
    };
    this.pool = new pg.Pool({ ...this.clientConfig, max: options.poolSize ?? 10 });
    // An idle connection that the server drops emits here; without a listener it would crash the process.
    this.pool.on('error', () => {});
  }

  /** Runs one statement outside a transaction. */
  async read<T>(body: (executor: PostgresExecutor) => Promise<T>): Promise<T> {
    this.#assertOpen();
    try {
      return await body(executorOf(this.pool));
    } catch (error) {
      throw toStoreError(error, this.description);
    }
  }

  /**
   * Runs `body` in one READ COMMITTED transaction. The parts take the row locks their checks depend
   * on (`FOR UPDATE`, `FOR SHARE`), so a check and the write it guards are one step. A deadlock,
   * serialization failure or a unique violation of two racing inserts runs the body again: the
   * second run sees what the winner wrote and answers as the contract says (same record, conflict).
   */
  async write<T>(body: (executor: PostgresExecutor) => Promise<T>): Promise<T> {
    this.#assertOpen();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#transaction(body);
      } catch (error) {
        const code = errorCode(error);
        const retry = code !== undefined && (retryableStates.has(code) || code === '23505');
        if (!retry || attempt >= 4) {
          throw toStoreError(error, this.description);
        }
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    await this.pool.end();
  }

  async #transaction<T>(body: (executor: PostgresExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // The pool stops listening for a client's errors while it is checked out: a connection lost
    // mid-transaction would be an uncaught 'error'. The query in flight rejects with it instead.
    const ignore = () => {};
    client.on('error', ignore);
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await body(executorOf(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError;
      }
      throw error;
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: destroy it rather than reuse it.
      client.removeListener('error', ignore);
      client.release(broken === undefined ? undefined : toError(broken));
    }
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StoreError({ code: 'store_closed', message: `the store on ${this.description} is closed` });
    }
  }
}

function executorOf(queryable: pg.Pool | pg.PoolClient): PostgresExecutor {
  return {
    async rows(sql, values) {
      return (await queryable.query(sql, values)).rows as Row[];
    },
    async row(sql, values) {
      return (await queryable.query(sql, values)).rows[0] as Row | undefined;
    },
    async run(sql, values) {
      return (await queryable.query(sql, values)).rowCount ?? 0;
    },
  };
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL without its password, for messages: `postgres://user@host:5432/db (schema agentd)`. */
export function describeUrl(url: string, schema: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return `${parsed.toString()} (schema ${schema})`;
  } catch {
    return `(unparseable URL) (schema ${schema})`;
  }
}
