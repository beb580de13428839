/**
 * A2A's own state (src/server/a2a): tasks and their push notification configs, kept beside the
 * core `Store` rather than in it, so the runtime's store knows nothing of any one edge. Every
 * implementation runs `runA2aStoreContract` (src/store/a2a-store-contract.ts).
 */

/** An A2A task as `src/server/a2a` keeps it: the whole task in the protocol's JSON form. */
export interface A2aTaskRecord {
  id: string;
  contextId: string;
  /** The state's wire name, such as `TASK_STATE_WORKING`. */
  state: string;
  /** ISO 8601 time of the latest status, `''` when none. Listings are newest first by it, then by id. */
  statusTimestamp: string;
  task: Record<string, unknown>;
  updatedAt: number;
}

export interface ListA2aTasksOptions {
  contextId?: string;
  /** Only tasks in one of these states. */
  states?: string[];
  /** Only tasks whose status time is later than this ISO 8601 time (compared as text). */
  statusTimestampAfter?: string;
  /** The page after this task (in listing order): the last task of the previous page. */
  after?: { statusTimestamp: string; id: string };
  /** @default 50 */
  limit?: number;
}

/** A push notification config of an A2A task, in the protocol's JSON form. */
export interface A2aPushConfigRecord {
  taskId: string;
  id: string;
  config: Record<string, unknown>;
  /** The A2A protocol version it was registered over (`1.0`, `0.3`): notifications use its shape. */
  wireVersion: string;
  createdAt: number;
}

/**
 * One event of a task queued for the task's push notification configs (the push outbox): any node
 * that follows the task queues it; the node that holds the push duty delivers it.
 */
export interface A2aPushEventRecord {
  taskId: string;
  /**
   * Stable across nodes and replays (events translated from the journal are named by their
   * journal cursor): queuing the same id twice keeps the first, and receivers deduplicate by it.
   */
  eventId: string;
  /** Position in the task's outbox: 1, 2, 3… in the order the events were first queued, no gaps. */
  seq: number;
  /** The notification: a `StreamResponse` in its JSON form. */
  event: Record<string, unknown>;
  /** The task just after the event (a v0.3 notification carries it), when it was known. */
  task: Record<string, unknown> | null;
  createdAt: number;
}

/** One event still to be delivered to one config. */
export interface A2aPushDelivery {
  config: A2aPushConfigRecord;
  event: A2aPushEventRecord;
}

export interface A2aStore {
  /** Creates or replaces the task with this id. */
  saveA2aTask(task: Omit<A2aTaskRecord, 'updatedAt'> & { now: number }): Promise<void>;
  getA2aTask(id: string): Promise<A2aTaskRecord | null>;
  /** A page of tasks, newest status first (ties by id, descending), and how many match without paging. */
  listA2aTasks(options?: ListA2aTasksOptions): Promise<{ tasks: A2aTaskRecord[]; total: number }>;
  /**
   * Creates or replaces the config with this task id and id; a replaced one keeps its place in the
   * list and its delivery progress. A new one is delivered the events queued after it.
   */
  saveA2aPushConfig(config: Omit<A2aPushConfigRecord, 'createdAt'> & { now: number }): Promise<void>;
  /** The task's configs in creation order. */
  listA2aPushConfigs(taskId: string): Promise<A2aPushConfigRecord[]>;
  /** Deletes one config, or all of the task's when `id` is omitted; unknown ones are a no-op. */
  deleteA2aPushConfig(options: { taskId: string; id?: string }): Promise<void>;
  /** Queues an event for the task's configs; false (and nothing changes) when its id was queued before. */
  appendA2aPushEvent(
    event: Omit<A2aPushEventRecord, 'seq' | 'createdAt'> & { now: number },
  ): Promise<boolean>;
  /**
   * What is left to deliver, across every task: for each config, the events queued after the last
   * one committed for it, in order, at most `perConfig` of them; configs in creation order.
   */
  pendingA2aPushDeliveries(options?: { perConfig?: number }): Promise<A2aPushDelivery[]>;
  /**
   * Records that the config's events up to `seq` were delivered (or given up). Progress never goes
   * back; events every config of the task is past keep only their id, so a replay stays deduplicated.
   */
  commitA2aPushDelivery(options: { taskId: string; configId: string; seq: number }): Promise<void>;
  close(): Promise<void>;
}
