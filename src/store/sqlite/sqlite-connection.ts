import type Database from 'better-sqlite3';
import { StoreError } from '../../errors/agentd-error.js';
import { toStoreError } from './open-database.js';

/**
 * One open data file: cached prepared statements, and the read/write wrappers every store
 * operation goes through so SQLite failures always surface as `StoreError`s with their cause.
 */
export class SqliteConnection {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #transaction: Database.Transaction<(body: () => unknown) => unknown>;
  #closed = false;

  constructor(options: { db: Database.Database; path: string }) {
    this.#db = options.db;
    this.path = options.path;
    this.#transaction = options.db.transaction((body: () => unknown) => body());
  }

  /** The prepared statement for `sql`, prepared once per connection. */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `body` in a `BEGIN IMMEDIATE` transaction: the write lock is taken first, so the reads a
   * write depends on cannot be invalidated by another process before it commits.
   */
  write<T>(body: () => T): T {
    this.#assertOpen();
    try {
      return this.#transaction.immediate(body) as T;
    } catch (error) {
      throw toStoreError(error, this.path);
    }
  }

  read<T>(body: () => T): T {
    this.#assertOpen();
    try {
      return body();
    } catch (error) {
      throw toStoreError(error, this.path);
    }
  }

  /** Reads one pragma's value, for diagnostics and tests. */
  pragma(name: string): unknown {
    return this.read(() => this.#db.pragma(name, { simple: true }));
  }

  close(): void {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StoreError({ code: 'store_closed', message: `the store on ${this.path} is closed` });
    }
  }
}
