import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AgentdError, StoreError } from '../../errors/agentd-error.js';
import { migrations } from './migrations.js';

const APPLICATION = 'agentd';
const SQLITE_HEADER = 'SQLite format 3\u0000';

export interface OpenDatabaseOptions {
  path: string;
  /** How long a statement waits for another connection's lock before failing, in ms. */
  busyTimeoutMs: number;
}

/**
 * Opens (creating when missing) an agentd SQLite data file and brings its schema up to date.
 * Refuses, without writing anything, a file that is not SQLite (`store_corrupt`), a SQLite file of
 * some other program (`store_foreign`) and a file written by a newer agentd (`store_too_new`).
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const { path } = options;
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) {
    mkdirSync(dirname(path), { recursive: true });
    assertSqliteHeader(path);
  }
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw toStoreError(error, path);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs))}`);
    // Check before any pragma that writes: a foreign or newer file must be left exactly as it was.
    inspectSchema(db, path);
    if (!inMemory) {
      db.pragma('journal_mode = WAL');
    }
    // FULL: in WAL mode NORMAL may lose the last commits on power loss, and an acknowledged event
    // must never be lost (DESIGN.md guarantee 1).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.transaction(() => migrate(db, path)).immediate();
  } catch (error) {
    db.close();
    throw toStoreError(error, path);
  }
  return db;
}

/** The schema version this build writes. */
export const SCHEMA_VERSION = migrations.length;

/** Translates a better-sqlite3 failure into a `StoreError`, keeping the original as `cause`. */
export function toStoreError(error: unknown, path: string): AgentdError {
  if (error instanceof AgentdError) {
    return error;
  }
  const code = sqliteCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code?.startsWith('SQLITE_CORRUPT')) {
    return notAgentdFile(path, `it is not a readable SQLite database (${message})`, error);
  }
  if (code?.startsWith('SQLITE_BUSY')) {
    return new StoreError({
      code: 'store_busy',
      message: `the agentd data file ${path} stayed locked by another process: ${message}`,
      cause: error,
    });
  }
  return new StoreError({ message: `the agentd data file ${path} failed: ${message}`, cause: error });
}

function sqliteCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

function notAgentdFile(path: string, reason: string, cause?: unknown): StoreError {
  return new StoreError({
    code: 'store_corrupt',
    message: `${path} is not an agentd data file: ${reason}`,
    cause,
  });
}

/** A non-empty file must start with the SQLite header; checked by hand so a text file gets a clear error. */
function assertSqliteHeader(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // Missing: it will be created.
  }
  if (size === 0) {
    return;
  }
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) {
    throw notAgentdFile(path, 'it does not start with the SQLite header');
  }
}

type SchemaState = { kind: 'empty' } | { kind: 'agentd'; version: number };

/** Reads what the file holds without writing to it. */
function inspectSchema(db: Database.Database, path: string): SchemaState {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((row) => (row as { name: string }).name);
  if (tables.length === 0) {
    return { kind: 'empty' };
  }
  const foreign = new StoreError({
    code: 'store_foreign',
    message: `${path} is a SQLite database of another program, not an agentd data file (tables: ${tables
      .slice(0, 5)
      .join(', ')})`,
  });
  if (!tables.includes('meta')) {
    throw foreign;
  }
  let application: string | undefined;
  let versionText: string | undefined;
  try {
    application = readMeta(db, 'application');
    versionText = readMeta(db, 'schema_version');
  } catch (error) {
    throw new StoreError({ code: 'store_foreign', message: foreign.message, cause: error });
  }
  if (application !== APPLICATION) {
    throw foreign;
  }
  const version = Number(versionText);
  if (!Number.isInteger(version) || version < 0) {
    throw notAgentdFile(path, `its schema_version ${JSON.stringify(versionText)} is not a number`);
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreError({
      code: 'store_too_new',
      message: `${path} has agentd schema version ${version}, newer than ${SCHEMA_VERSION} that this agentd knows; upgrade agentd to open it`,
    });
  }
  return { kind: 'agentd', version };
}

function readMeta(db: Database.Database, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: unknown } | undefined;
  return typeof row?.value === 'string' ? row.value : undefined;
}

/** Runs inside an IMMEDIATE transaction, so two processes opening a new file migrate it once. */
function migrate(db: Database.Database, path: string): void {
  // Inspect again under the write lock: another process may have migrated since the first look.
  const state = inspectSchema(db, path);
  let version = state.kind === 'agentd' ? state.version : 0;
  if (state.kind === 'empty') {
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT');
    const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    insert.run('application', APPLICATION);
    insert.run('schema_version', '0');
  }
  const setVersion = db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'");
  for (; version < SCHEMA_VERSION; version += 1) {
    db.exec(migrations[version]!);
    setVersion.run(String(version + 1));
  }
}
