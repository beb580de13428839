import { pendingDeliveriesSql } from '../a2a-push-sql.js';
import type {
  A2aPushConfigRecord,
  A2aPushDelivery,
  A2aPushEventRecord,
  A2aStore,
  A2aTaskRecord,
  ListA2aTasksOptions,
} from '../a2a-store.js';
import { openDatabase } from './open-database.js';
import { toA2aPushConfigRecord, toA2aPushDelivery, toA2aTaskRecord } from './rows.js';
import { SqliteConnection } from './sqlite-connection.js';
import type { SqliteStoreOptions } from './sqlite-store.js';

const defaultLimit = 50;
const defaultPerConfig = 16;

/**
 * A2A tasks and their push notification configs on SQLite: the agentd data file (its schema has the
 * A2A tables), through a connection of its own, so the core store needs no A2A methods. Like
 * `SqliteStore`, it runs synchronously behind async methods.
 */
export class SqliteA2aStore implements A2aStore {
  readonly #connection: SqliteConnection;

  private constructor(connection: SqliteConnection) {
    this.#connection = connection;
  }

  /** Opens the data file as `SqliteStore.open` does (creating and migrating it when new). */
  static open(options: SqliteStoreOptions): SqliteA2aStore {
    const db = openDatabase({ path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    return new SqliteA2aStore(new SqliteConnection({ db, path: options.path }));
  }

  async saveA2aTask(task: Omit<A2aTaskRecord, 'updatedAt'> & { now: number }): Promise<void> {
    this.#connection.write(() => {
      this.#connection
        .statement(
          `INSERT INTO a2a_tasks (id, context_id, state, status_timestamp, task, updated_at)
           VALUES (@id, @contextId, @state, @statusTimestamp, @task, @now)
           ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
             status_timestamp = excluded.status_timestamp, task = excluded.task, updated_at = excluded.updated_at`,
        )
        .run({
          id: task.id,
          contextId: task.contextId,
          state: task.state,
          statusTimestamp: task.statusTimestamp,
          task: JSON.stringify(task.task),
          now: task.now,
        });
    });
  }

  async getA2aTask(id: string): Promise<A2aTaskRecord | null> {
    return this.#connection.read(() => {
      const row = this.#connection.statement('SELECT * FROM a2a_tasks WHERE id = ?').get(id);
      return row === undefined ? null : toA2aTaskRecord(row);
    });
  }

  async listA2aTasks(options: ListA2aTasksOptions = {}): Promise<{ tasks: A2aTaskRecord[]; total: number }> {
    const conditions: string[] = [];
    const parameters: Record<string, unknown> = {};
    if (options.contextId !== undefined) {
      conditions.push('context_id = @contextId');
      parameters.contextId = options.contextId;
    }
    if (options.states !== undefined) {
      const names = options.states.map((_, index) => `@state${index}`);
      conditions.push(names.length > 0 ? `state IN (${names.join(', ')})` : '0');
      options.states.forEach((state, index) => {
        parameters[`state${index}`] = state;
      });
    }
    if (options.statusTimestampAfter !== undefined) {
      conditions.push('status_timestamp > @statusTimestampAfter');
      parameters.statusTimestampAfter = options.statusTimestampAfter;
    }
    const filter = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const page = [...conditions];
    if (options.after !== undefined) {
      page.push('(status_timestamp < @afterTime OR (status_timestamp = @afterTime AND id < @afterId))');
      parameters.afterTime = options.after.statusTimestamp;
      parameters.afterId = options.after.id;
    }
    const pageFilter = page.length > 0 ? `WHERE ${page.join(' AND ')}` : '';
    return this.#connection.read(() => {
      const { total } = this.#connection
        .statement(`SELECT count(*) AS total FROM a2a_tasks ${filter}`)
        .get(withOnly(parameters, filter)) as { total: number };
      const tasks = this.#connection
        .statement(
          `SELECT * FROM a2a_tasks ${pageFilter} ORDER BY status_timestamp DESC, id DESC LIMIT @limit`,
        )
        .all({ ...parameters, limit: Math.max(0, options.limit ?? defaultLimit) })
        .map(toA2aTaskRecord);
      return { tasks, total };
    });
  }

  async saveA2aPushConfig(config: Omit<A2aPushConfigRecord, 'createdAt'> & { now: number }): Promise<void> {
    this.#connection.write(() => {
      this.#connection
        .statement(
          `INSERT INTO a2a_push_configs (task_id, id, config, wire_version, created_at, delivered_seq)
           VALUES (@taskId, @id, @config, @wireVersion, @now,
             (SELECT coalesce(max(seq), 0) FROM a2a_push_events WHERE task_id = @taskId))
           ON CONFLICT (task_id, id) DO UPDATE SET config = excluded.config, wire_version = excluded.wire_version`,
        )
        .run({
          taskId: config.taskId,
          id: config.id,
          config: JSON.stringify(config.config),
          wireVersion: config.wireVersion,
          now: config.now,
        });
    });
  }

  async listA2aPushConfigs(taskId: string): Promise<A2aPushConfigRecord[]> {
    return this.#connection.read(() =>
      this.#connection
        .statement('SELECT * FROM a2a_push_configs WHERE task_id = ? ORDER BY seq')
        .all(taskId)
        .map(toA2aPushConfigRecord),
    );
  }

  async deleteA2aPushConfig(options: { taskId: string; id?: string }): Promise<void> {
    this.#connection.write(() => {
      this.#connection
        .statement('DELETE FROM a2a_push_configs WHERE task_id = @taskId AND (@id IS NULL OR id = @id)')
        .run({ taskId: options.taskId, id: options.id ?? null });
      this.#clearDelivered(options.taskId);
    });
  }

  async appendA2aPushEvent(
    event: Omit<A2aPushEventRecord, 'seq' | 'createdAt'> & { now: number },
  ): Promise<boolean> {
    return this.#connection.write(() => {
      // The write transaction serializes appends: seq is the task's next number, with no gaps.
      const { changes } = this.#connection
        .statement(
          `INSERT INTO a2a_push_events (task_id, seq, event_id, event, task, created_at)
           SELECT @taskId, coalesce(max(seq), 0) + 1, @eventId, @event, @task, @now
             FROM a2a_push_events WHERE task_id = @taskId
           ON CONFLICT (task_id, event_id) DO NOTHING`,
        )
        .run({
          taskId: event.taskId,
          eventId: event.eventId,
          event: JSON.stringify(event.event),
          task: event.task === null ? null : JSON.stringify(event.task),
          now: event.now,
        });
      return changes > 0;
    });
  }

  async pendingA2aPushDeliveries(options: { perConfig?: number } = {}): Promise<A2aPushDelivery[]> {
    return this.#connection.read(() =>
      this.#connection
        .statement(pendingDeliveriesSql('@perConfig'))
        .all({ perConfig: Math.max(1, options.perConfig ?? defaultPerConfig) })
        .map(toA2aPushDelivery),
    );
  }

  async commitA2aPushDelivery(options: { taskId: string; configId: string; seq: number }): Promise<void> {
    this.#connection.write(() => {
      this.#connection
        .statement(
          `UPDATE a2a_push_configs SET delivered_seq = max(delivered_seq, @seq)
           WHERE task_id = @taskId AND id = @configId`,
        )
        .run(options);
      this.#clearDelivered(options.taskId);
    });
  }

  /** Events every config of the task is past keep only their id (to deduplicate a replay). */
  #clearDelivered(taskId: string): void {
    this.#connection
      .statement(
        `UPDATE a2a_push_events SET event = NULL, task = NULL
         WHERE task_id = @taskId AND event IS NOT NULL
           AND seq <= coalesce((SELECT min(delivered_seq) FROM a2a_push_configs WHERE task_id = @taskId),
                               (SELECT max(seq) FROM a2a_push_events WHERE task_id = @taskId))`,
      )
      .run({ taskId });
  }

  async close(): Promise<void> {
    this.#connection.close();
  }
}

/** better-sqlite3 refuses named parameters that the statement does not use. */
function withOnly(parameters: Record<string, unknown>, sql: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parameters).filter(([name]) => sql.includes(`@${name}`)));
}
