import { LocalChangeFeed } from '../change-feed.js';
import type { Store } from '../store.js';
import { openDatabase } from './open-database.js';
import { sqliteBudgets } from './sqlite-budgets.js';
import { sqliteChannels } from './sqlite-channels.js';
import { SqliteConnection } from './sqlite-connection.js';
import { sqliteEvents } from './sqlite-events.js';
import { sqliteExecutions } from './sqlite-executions.js';
import { sqliteGrants } from './sqlite-grants.js';
import { sqliteInputs } from './sqlite-inputs.js';
import { sqliteInteractions } from './sqlite-interactions.js';
import { sqliteLeases } from './sqlite-leases.js';
import { sqliteOrganizations } from './sqlite-organizations.js';
import { sqlitePermissionRules } from './sqlite-permission-rules.js';
import { sqliteProviders } from './sqlite-providers.js';
import { sqliteRoles } from './sqlite-roles.js';
import { sqliteSessions } from './sqlite-sessions.js';
import { sqliteTranscripts } from './sqlite-transcripts.js';

export interface SqliteStoreOptions {
  /** The data file; created, with its directory, when missing. `:memory:` gives a throwaway store. */
  path: string;
  /**
   * How long a write waits for another process's lock before failing with `store_busy`, in ms.
   * @default 5000
   */
  busyTimeoutMs?: number;
}

/**
 * The embedded Store: one SQLite file through better-sqlite3, in WAL mode with synchronous=FULL.
 * Several processes may open the same file. Every write runs in a `BEGIN IMMEDIATE` transaction, so
 * the checks it depends on (lease epoch, idempotency keys, next cursor) and the write are one step.
 *
 * The methods are async to fit `Store`, but run synchronously: better-sqlite3 is synchronous and a
 * local SQLite write is faster than a hop to a thread pool would be.
 */
export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  readonly path: string;
  /** A pragma's current value, such as `journal_mode` or `synchronous`. */
  pragma(name: string): unknown;
}

export const SqliteStore = {
  /**
   * Opens the data file, creating and migrating it when new. Throws `StoreError` with code
   * `store_corrupt` (not a SQLite file), `store_foreign` (another program's database) or
   * `store_too_new` (written by a newer agentd), leaving such a file untouched.
   */
  open(options: SqliteStoreOptions): SqliteStore {
    const db = openDatabase({ path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    const connection = new SqliteConnection({ db, path: options.path });
    // Wakes this process's readers on its own writes; workers write from their own processes, so
    // readers keep a short poll beside it (`crossProcess` is false).
    const changes = new LocalChangeFeed();
    const events = sqliteEvents(connection);
    const inputs = sqliteInputs(connection);
    const interactions = sqliteInteractions(connection);
    // Each part is an object of the `Store` methods of one concern (see store.ts): spread, they are the store.
    return {
      kind: 'sqlite',
      path: options.path,
      ...sqliteSessions(connection),
      ...sqliteProviders(connection),
      ...sqliteOrganizations(connection),
      ...sqliteRoles(connection),
      ...sqliteChannels(connection),
      ...sqliteGrants(connection),
      ...sqliteBudgets(connection),
      ...sqlitePermissionRules(connection),
      ...sqliteLeases(connection),
      ...sqliteExecutions(connection),
      ...inputs,
      ...events,
      ...interactions,
      changes,
      appendEvents: async (sessionId, records, appendOptions) => {
        const appended = await events.appendEvents(sessionId, records, appendOptions);
        if (appended.length > 0) changes.emit('events', sessionId);
        return appended;
      },
      addInput: async (input) => {
        const added = await inputs.addInput(input);
        if (added.created) changes.emit('inputs', input.sessionId);
        return added;
      },
      answerInteraction: async (id, answer, now) => {
        const answered = await interactions.answerInteraction(id, answer, now);
        changes.emit('answers', answered.sessionId);
        return answered;
      },
      ...sqliteTranscripts(connection),
      pragma: (name) => connection.pragma(name),
      ping: async () => {
        connection.read(() => connection.statement('SELECT 1').get());
      },
      close: async () => connection.close(),
    };
  },
};
