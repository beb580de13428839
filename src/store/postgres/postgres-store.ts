import type { Store } from '../store.js';
import { migrate } from './migrate.js';
import { postgresBudgets } from './postgres-budgets.js';
import { postgresChannels } from './postgres-channels.js';
import { postgresChatMessages } from './postgres-chat-messages.js';
import { PostgresConnection } from './postgres-connection.js';
import { postgresEvents } from './postgres-events.js';
import { postgresExecutions } from './postgres-executions.js';
import { postgresGrants } from './postgres-grants.js';
import { postgresInputs } from './postgres-inputs.js';
import { postgresInteractions } from './postgres-interactions.js';
import { PostgresLeadership } from './postgres-leadership.js';
import { type LeaseClock, postgresLeases } from './postgres-leases.js';
import { PostgresNotifier } from './postgres-notifier.js';
import { postgresOrganizations } from './postgres-organizations.js';
import { postgresPermissionRules } from './postgres-permission-rules.js';
import { postgresProviders } from './postgres-providers.js';
import { postgresRoles } from './postgres-roles.js';
import { postgresSchedules } from './postgres-schedules.js';
import { postgresSessions } from './postgres-sessions.js';
import { postgresTranscripts } from './postgres-transcripts.js';
import { postgresWebhooks } from './postgres-webhooks.js';

export interface PostgresStoreOptions {
  /** A libpq-style URL: `postgres://user:password@host:5432/database`. */
  url: string;
  /**
   * The schema holding agentd's tables, created when missing.
   * @default 'agentd'
   */
  schema?: string;
  /**
   * Whose clock lease expiry uses: the database's (`clock_timestamp()`), or the `now` each call passes.
   * @default 'database'
   */
  leaseClock?: LeaseClock;
  /** @default 10 */
  poolSize?: number;
  /**
   * How long opening a connection may take before the call fails with `store_unavailable`, in ms.
   * @default 5000
   */
  connectTimeoutMs?: number;
}

/**
 * The shared Store: one PostgreSQL database, any number of agentd nodes. Every check-then-write runs
 * in one transaction holding the row locks it depends on; see docs/decisions/0090 for cursors,
 * leases and which node does what.
 */
export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** The URL without its password, and the schema. */
  readonly description: string;
  /** Wakes readers of this process and, through LISTEN/NOTIFY, of every other node. */
  readonly changes: PostgresNotifier;
  /** One node at a time leads each duty: a session-level advisory lock. */
  leadership(duty: string): PostgresLeadership;
}

export const PostgresStore = {
  /**
   * Connects, then creates or migrates the schema under an advisory lock. Throws `StoreError` with
   * code `store_unavailable` (server unreachable), `store_foreign` (another program's tables) or
   * `store_too_new` (written by a newer agentd).
   */
  async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const connection = new PostgresConnection({
      url: options.url,
      schema: options.schema ?? 'agentd',
      poolSize: options.poolSize,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    try {
      await migrate(connection);
    } catch (error) {
      await connection.close();
      throw error;
    }
    const notifier = new PostgresNotifier(connection);
    // Each part is an object of the `Store` methods of one concern (see store.ts): spread, they are the store.
    return {
      kind: 'postgres',
      description: connection.description,
      changes: notifier,
      ...postgresSessions(connection),
      ...postgresProviders(connection),
      ...postgresOrganizations(connection),
      ...postgresRoles(connection),
      ...postgresChannels(connection),
      ...postgresChatMessages(connection),
      ...postgresGrants(connection),
      ...postgresBudgets(connection),
      ...postgresPermissionRules(connection),
      ...postgresLeases(connection, options.leaseClock ?? 'database'),
      ...postgresExecutions(connection),
      ...postgresInputs(
        connection,
        (sessionId) => notifier.notify('inputs', sessionId),
        (sessionId) => notifier.notify('events', sessionId),
      ),
      ...postgresEvents(connection, (sessionId) => notifier.notify('events', sessionId)),
      ...postgresInteractions(connection, (sessionId) => notifier.notify('answers', sessionId)),
      ...postgresTranscripts(connection),
      ...postgresSchedules(connection),
      ...postgresWebhooks(connection),
      leadership: (duty) => new PostgresLeadership(connection, { duty }),
      ping: async () => {
        await connection.read((executor) => executor.run('SELECT 1'));
      },
      close: async () => {
        await notifier.close();
        await connection.close();
      },
    };
  },
};
