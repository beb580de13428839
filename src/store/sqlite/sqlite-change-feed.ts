import { closeSync, constants, type FSWatcher, openSync, watch, writeSync } from 'node:fs';
import { type ChangeFeed, type ChangeKind, type ChangeListener, LocalChangeFeed } from '../change-feed.js';
import type { SqliteConnection } from './sqlite-connection.js';

export interface SqliteChangeFeedOptions {
  connection: SqliteConnection;
  /**
   * Also wake this process's readers on other processes' commits (a worker journaling an event).
   * Off for a worker: the runtime on its host signals it, and watching would wake every worker on
   * every session's writes. @default true
   */
  watchOthers?: boolean;
  log?: (line: string) => void;
}

/** One byte, rewritten in place after each commit that readers wait for. */
const wakeByte = Buffer.from([0x2a]);

/**
 * The change feed of a SQLite store. This process's commits wake its readers at once. Across
 * processes, every store that commits an event, an input or an answer then rewrites one byte of the
 * data file's wake file (`agentd.db-wake`), and a store that watches it (inotify) learns that
 * something changed. Not the WAL itself: its last write comes before the commit is visible (the
 * fsync and the WAL index update follow), so a reader woken by it could look too early and miss
 * the commit. One read of the rows added since the last look (events by rowid, inputs by seq) then
 * tells which sessions changed, and only their readers wake; a burst of commits is looked at once.
 *
 * The watch starts on the first `watch` and is what `crossProcess` reports. Where it cannot
 * (`:memory:`, no inotify, its limit reached) readers keep their short poll.
 */
export class SqliteChangeFeed implements ChangeFeed {
  readonly #local = new LocalChangeFeed();
  readonly #connection: SqliteConnection;
  readonly #wakeFile: string | undefined;
  readonly #watchOthers: boolean;
  readonly #log: ((line: string) => void) | undefined;
  #wakeFd: number | undefined;
  #watcher: FSWatcher | undefined;
  #tried = false;
  #scanScheduled = false;
  #lastEventRow = 0;
  #lastInputSeq = 0;

  constructor(options: SqliteChangeFeedOptions) {
    this.#connection = options.connection;
    const path = options.connection.path;
    this.#wakeFile = path === ':memory:' || path === '' ? undefined : `${path}-wake`;
    this.#watchOthers = options.watchOthers ?? true;
    this.#log = options.log;
    if (this.#wakeFile !== undefined) {
      try {
        this.#wakeFd = openSync(this.#wakeFile, constants.O_RDWR | constants.O_CREAT, 0o600);
      } catch (error) {
        // A read-only directory: other processes' readers fall back to their poll.
        this.#log?.(`cannot open ${this.#wakeFile}: ${String(error)}`);
      }
    }
  }

  get crossProcess(): boolean {
    return this.#watcher !== undefined;
  }

  watch(kind: ChangeKind, listener: ChangeListener): () => void {
    const unwatch = this.#local.watch(kind, listener);
    if (this.#watchOthers && !this.#tried) this.#start();
    return unwatch;
  }

  /** Reports a commit of this process: its readers now, other processes' through the wake file. */
  emit(kind: ChangeKind, sessionId: string): void {
    this.#local.emit(kind, sessionId);
    if (this.#wakeFd === undefined) return;
    try {
      writeSync(this.#wakeFd, wakeByte, 0, 1, 0);
    } catch {
      // Only a hint: other processes' readers still poll.
    }
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    if (this.#wakeFd !== undefined) closeSync(this.#wakeFd);
    this.#wakeFd = undefined;
  }

  #start(): void {
    this.#tried = true;
    if (this.#wakeFile === undefined || this.#wakeFd === undefined) return;
    try {
      this.#markSeen();
      const watcher = watch(this.#wakeFile, { persistent: false }, () => this.#scheduleScan());
      watcher.on('error', (error) => {
        this.#log?.(`watching ${this.#wakeFile} stopped: ${String(error)}`);
        this.#watcher?.close();
        this.#watcher = undefined;
        // Readers go back to their short poll; wake them once so that none waits on the long one.
        for (const kind of this.#local.kinds()) this.#local.emit(kind, null);
      });
      this.#watcher = watcher;
    } catch (error) {
      this.#log?.(`cannot watch ${this.#wakeFile}: ${String(error)}`);
    }
  }

  #scheduleScan(): void {
    if (this.#scanScheduled) return;
    this.#scanScheduled = true;
    setImmediate(() => {
      this.#scanScheduled = false;
      try {
        this.#scan();
      } catch (error) {
        // Closed or busy: wake everyone; each reads, and finds out, itself.
        this.#log?.(`reading what changed in ${this.#connection.path} failed: ${String(error)}`);
        for (const kind of this.#local.kinds()) this.#local.emit(kind, null);
      }
    });
  }

  /** From now on only rows added later count as changes. */
  #markSeen(): void {
    const last = (sql: string) =>
      (this.#connection.statement(sql).get() as { last: number | null }).last ?? 0;
    this.#connection.read(() => {
      this.#lastEventRow = last('SELECT MAX(rowid) AS last FROM events');
      this.#lastInputSeq = last('SELECT MAX(seq) AS last FROM inputs');
    });
  }

  #scan(): void {
    if (this.#watcher === undefined) return;
    const kinds = new Set(this.#local.kinds());
    const changed = (sql: string, after: number) =>
      this.#connection.read(
        () => this.#connection.statement(sql).all(after) as Array<{ id: string; last: number }>,
      );
    if (kinds.has('events')) {
      for (const row of changed(
        'SELECT session_id AS id, MAX(rowid) AS last FROM events WHERE rowid > ? GROUP BY session_id',
        this.#lastEventRow,
      )) {
        this.#lastEventRow = Math.max(this.#lastEventRow, row.last);
        this.#local.emit('events', row.id);
      }
    }
    if (kinds.has('inputs')) {
      for (const row of changed(
        'SELECT session_id AS id, MAX(seq) AS last FROM inputs WHERE seq > ? GROUP BY session_id',
        this.#lastInputSeq,
      )) {
        this.#lastInputSeq = Math.max(this.#lastInputSeq, row.last);
        this.#local.emit('inputs', row.id);
      }
    }
    // An answer updates its row in place, which no cheap read tells apart: its readers look again.
    if (kinds.has('answers')) this.#local.emit('answers', null);
  }
}
