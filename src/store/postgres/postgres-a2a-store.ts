import { pendingDeliveriesSql } from '../a2a-push-sql.js';
import type {
  A2aPushConfigRecord,
  A2aPushDelivery,
  A2aPushEventRecord,
  A2aStore,
  A2aTaskRecord,
  ListA2aTasksOptions,
} from '../a2a-store.js';
import { toA2aPushConfigRecord, toA2aPushDelivery, toA2aTaskRecord } from '../sqlite/rows.js';
import { migrate } from './migrate.js';
import { PostgresConnection, type PostgresExecutor } from './postgres-connection.js';
import type { PostgresStoreOptions } from './postgres-store.js';

const defaultLimit = 50;

/**
 * A2A tasks and their push notification configs on PostgreSQL: agentd's schema (it has the A2A
 * tables), through a pool of its own, so the core store needs no A2A methods.
 */
export class PostgresA2aStore implements A2aStore {
  readonly #connection: PostgresConnection;

  private constructor(connection: PostgresConnection) {
    this.#connection = connection;
  }

  /** Connects and migrates as `PostgresStore.open` does. */
  static async open(options: PostgresStoreOptions): Promise<PostgresA2aStore> {
    const connection = new PostgresConnection({
      url: options.url,
      schema: options.schema ?? 'agentd',
      poolSize: options.poolSize ?? 4,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    try {
      await migrate(connection);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return new PostgresA2aStore(connection);
  }

  async saveA2aTask(task: Omit<A2aTaskRecord, 'updatedAt'> & { now: number }): Promise<void> {
    await this.#connection.write((executor) =>
      executor.run(
        `INSERT INTO a2a_tasks (id, context_id, state, status_timestamp, task, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
           status_timestamp = excluded.status_timestamp, task = excluded.task, updated_at = excluded.updated_at`,
        [task.id, task.contextId, task.state, task.statusTimestamp, JSON.stringify(task.task), task.now],
      ),
    );
  }

  async getA2aTask(id: string): Promise<A2aTaskRecord | null> {
    return this.#connection.read(async (executor) => {
      const row = await executor.row('SELECT * FROM a2a_tasks WHERE id = $1', [id]);
      return row === undefined ? null : toA2aTaskRecord(row);
    });
  }

  async listA2aTasks(options: ListA2aTasksOptions = {}): Promise<{ tasks: A2aTaskRecord[]; total: number }> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    const parameter = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    if (options.contextId !== undefined) {
      conditions.push(`context_id = ${parameter(options.contextId)}`);
    }
    if (options.states !== undefined) {
      conditions.push(`state = ANY(${parameter(options.states)}::text[])`);
    }
    if (options.statusTimestampAfter !== undefined) {
      conditions.push(`status_timestamp > ${parameter(options.statusTimestampAfter)}`);
    }
    const filterValues = [...values];
    const filter = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const page = [...conditions];
    if (options.after !== undefined) {
      const time = parameter(options.after.statusTimestamp);
      const id = parameter(options.after.id);
      page.push(`(status_timestamp < ${time} OR (status_timestamp = ${time} AND id < ${id}))`);
    }
    const pageFilter = page.length > 0 ? `WHERE ${page.join(' AND ')}` : '';
    const limit = parameter(Math.max(0, options.limit ?? defaultLimit));
    return this.#connection.read(async (executor) => {
      const counted = await executor.row(`SELECT count(*) AS total FROM a2a_tasks ${filter}`, filterValues);
      const tasks = (
        await executor.rows(
          `SELECT * FROM a2a_tasks ${pageFilter} ORDER BY status_timestamp DESC, id DESC LIMIT ${limit}`,
          values,
        )
      ).map(toA2aTaskRecord);
      return { tasks, total: Number(counted?.total ?? 0) };
    });
  }

  async saveA2aPushConfig(config: Omit<A2aPushConfigRecord, 'createdAt'> & { now: number }): Promise<void> {
    await this.#connection.write((executor) =>
      executor.run(
        `INSERT INTO a2a_push_configs (task_id, id, config, wire_version, created_at, delivered_seq)
         VALUES ($1, $2, $3, $4, $5, (SELECT coalesce(max(seq), 0) FROM a2a_push_events WHERE task_id = $1))
         ON CONFLICT (task_id, id) DO UPDATE SET config = excluded.config, wire_version = excluded.wire_version`,
        [config.taskId, config.id, JSON.stringify(config.config), config.wireVersion, config.now],
      ),
    );
  }

  async listA2aPushConfigs(taskId: string): Promise<A2aPushConfigRecord[]> {
    return this.#connection.read(async (executor) =>
      (await executor.rows('SELECT * FROM a2a_push_configs WHERE task_id = $1 ORDER BY seq', [taskId])).map(
        toA2aPushConfigRecord,
      ),
    );
  }

  async deleteA2aPushConfig(options: { taskId: string; id?: string }): Promise<void> {
    await this.#connection.write(async (executor) => {
      await executor.run(
        'DELETE FROM a2a_push_configs WHERE task_id = $1 AND ($2::text IS NULL OR id = $2)',
        [options.taskId, options.id ?? null],
      );
      await clearDelivered(executor, options.taskId);
    });
  }

  async appendA2aPushEvent(
    event: Omit<A2aPushEventRecord, 'seq' | 'createdAt'> & { now: number },
  ): Promise<boolean> {
    return this.#connection.write(async (executor) => {
      // Appends of one task wait for each other, so seqs are given in commit order with no gaps (a
      // reader that saw seq n never later finds an n - 1 it skipped); other tasks do not wait.
      await executor.run('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
        `agentd.a2a_push.${this.#connection.schema}`,
        event.taskId,
      ]);
      const inserted = await executor.run(
        `INSERT INTO a2a_push_events (task_id, seq, event_id, event, task, created_at)
         SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5 FROM a2a_push_events WHERE task_id = $1
         ON CONFLICT (task_id, event_id) DO NOTHING`,
        [
          event.taskId,
          event.eventId,
          JSON.stringify(event.event),
          event.task === null ? null : JSON.stringify(event.task),
          event.now,
        ],
      );
      return inserted > 0;
    });
  }

  async pendingA2aPushDeliveries(options: { perConfig?: number } = {}): Promise<A2aPushDelivery[]> {
    return this.#connection.read(async (executor) =>
      (await executor.rows(pendingDeliveriesSql('$1'), [Math.max(1, options.perConfig ?? 16)])).map(
        toA2aPushDelivery,
      ),
    );
  }

  async commitA2aPushDelivery(options: { taskId: string; configId: string; seq: number }): Promise<void> {
    await this.#connection.write(async (executor) => {
      await executor.run(
        `UPDATE a2a_push_configs SET delivered_seq = greatest(delivered_seq, $3)
         WHERE task_id = $1 AND id = $2`,
        [options.taskId, options.configId, options.seq],
      );
      await clearDelivered(executor, options.taskId);
    });
  }

  async close(): Promise<void> {
    await this.#connection.close();
  }
}

/** Events every config of the task is past keep only their id (to deduplicate a replay). */
async function clearDelivered(executor: PostgresExecutor, taskId: string): Promise<void> {
  await executor.run(
    `UPDATE a2a_push_events SET event = NULL, task = NULL
     WHERE task_id = $1 AND event IS NOT NULL
       AND seq <= coalesce((SELECT min(delivered_seq) FROM a2a_push_configs WHERE task_id = $1),
                           (SELECT max(seq) FROM a2a_push_events WHERE task_id = $1))`,
    [taskId],
  );
}
