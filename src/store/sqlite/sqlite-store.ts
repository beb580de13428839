import type { Store } from '../store.js';
import { openDatabase } from './open-database.js';
import { sqliteBudgets } from './sqlite-budgets.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { sqliteChannels } from './sqlite-channels.js';
import { sqliteChatMessages } from './sqlite-chat-messages.js';
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
import { sqliteSchedules } from './sqlite-schedules.js';
import { sqliteSessions } from './sqlite-sessions.js';
import { sqliteTranscripts } from './sqlite-transcripts.js';
import { sqliteWebhooks } from './sqlite-webhooks.js';

export interface SqliteStoreOptions {
  /** The data file; created, with its directory, when missing. `:memory:` gives a throwaway store. */
  path: string;
  /**
   * How long a write waits for another process's lock before failing with `store_busy`, in ms.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * Wake this process's readers on other processes' commits too (the change feed's `crossProcess`).
   * A worker opens its store without: the runtime on its host signals it. @default true
   */
  watchOthers?: boolean;
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
    // Wakes this process's readers on its own commits at once, and on other processes' through the
    // data file's wake file (decision 0120).
    const changes = new SqliteChangeFeed({
      connection,
      ...(options.watchOthers === false ? { watchOthers: false } : {}),
    });
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
      ...sqliteChatMessages(connection),
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
        if (added.events.length > 0) changes.emit('events', input.sessionId);
        return added;
      },
      updateInputStates: async (options) => {
        const changed = await inputs.updateInputStates(options);
        if (changed.length > 0 && options.events?.length) changes.emit('events', options.sessionId);
        return changed;
      },
      answerInteraction: async (id, answer, now) => {
        const answered = await interactions.answerInteraction(id, answer, now);
        changes.emit('answers', answered.sessionId);
        return answered;
      },
      ...sqliteTranscripts(connection),
      ...sqliteSchedules(connection),
      ...sqliteWebhooks(connection),
      pragma: (name) => connection.pragma(name),
      ping: async () => {
        connection.read(() => connection.statement('SELECT 1').get());
      },
      close: async () => {
        changes.close();
        connection.close();
      },
    };
  },
};
