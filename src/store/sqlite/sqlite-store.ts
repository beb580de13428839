import type {
  A2aPushConfigRecord,
  A2aTaskRecord,
  AcquireLeaseOptions,
  DeliveryState,
  EventRecord,
  ExecutionFence,
  ExecutionRecord,
  ExecutionState,
  InputRecord,
  InteractionRecord,
  InteractionState,
  LeaseRecord,
  ListA2aTasksOptions,
  NewEvent,
  NewSession,
  SessionRecord,
  SessionState,
  Store,
  TranscriptKey,
} from '../store.js';
import { openDatabase } from './open-database.js';
import { SqliteA2a } from './sqlite-a2a.js';
import { SqliteConnection } from './sqlite-connection.js';
import { SqliteEvents } from './sqlite-events.js';
import { SqliteExecutions } from './sqlite-executions.js';
import { SqliteInputs } from './sqlite-inputs.js';
import { SqliteInteractions } from './sqlite-interactions.js';
import { SqliteLeases } from './sqlite-leases.js';
import { SqliteSessions } from './sqlite-sessions.js';
import { SqliteTranscripts } from './sqlite-transcripts.js';

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
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly path: string;
  readonly #connection: SqliteConnection;
  readonly #sessions: SqliteSessions;
  readonly #leases: SqliteLeases;
  readonly #executions: SqliteExecutions;
  readonly #inputs: SqliteInputs;
  readonly #events: SqliteEvents;
  readonly #interactions: SqliteInteractions;
  readonly #transcripts: SqliteTranscripts;
  readonly #a2a: SqliteA2a;

  private constructor(connection: SqliteConnection) {
    this.path = connection.path;
    this.#connection = connection;
    this.#sessions = new SqliteSessions(connection);
    this.#leases = new SqliteLeases(connection);
    this.#executions = new SqliteExecutions(connection);
    this.#inputs = new SqliteInputs(connection);
    this.#events = new SqliteEvents(connection);
    this.#interactions = new SqliteInteractions(connection);
    this.#transcripts = new SqliteTranscripts(connection);
    this.#a2a = new SqliteA2a(connection);
  }

  /**
   * Opens the data file, creating and migrating it when new. Throws `StoreError` with code
   * `store_corrupt` (not a SQLite file), `store_foreign` (another program's database) or
   * `store_too_new` (written by a newer agentd), leaving such a file untouched.
   */
  static open(options: SqliteStoreOptions): SqliteStore {
    const db = openDatabase({ path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    return new SqliteStore(new SqliteConnection({ db, path: options.path }));
  }

  /** A pragma's current value, such as `journal_mode` or `synchronous`. */
  pragma(name: string): unknown {
    return this.#connection.pragma(name);
  }

  async createSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean }> {
    return this.#sessions.create(session);
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    return this.#sessions.get(id);
  }

  async listSessions(options: { state?: SessionState; limit?: number } = {}): Promise<SessionRecord[]> {
    return this.#sessions.list(options);
  }

  async updateSession(
    id: string,
    patch: Partial<Pick<SessionRecord, 'state' | 'nativeSessionId' | 'title'>> & { now: number },
  ): Promise<SessionRecord> {
    return this.#sessions.update(id, patch);
  }

  async acquireLease(options: AcquireLeaseOptions): Promise<LeaseRecord | null> {
    return this.#leases.acquire(options);
  }

  async renewLease(options: {
    sessionId: string;
    epoch: number;
    ttlMs: number;
    now: number;
  }): Promise<boolean> {
    return this.#leases.renew(options);
  }

  async releaseLease(options: { sessionId: string; epoch: number }): Promise<void> {
    this.#leases.release(options);
  }

  async getLease(sessionId: string): Promise<LeaseRecord | null> {
    return this.#leases.get(sessionId);
  }

  async createExecution(execution: { id: string; sessionId: string; now: number }): Promise<ExecutionRecord> {
    return this.#executions.create(execution);
  }

  async getExecution(id: string): Promise<ExecutionRecord | null> {
    return this.#executions.get(id);
  }

  async listExecutions(sessionId: string): Promise<ExecutionRecord[]> {
    return this.#executions.list(sessionId);
  }

  async listExecutionsByState(states: ExecutionState[]): Promise<ExecutionRecord[]> {
    return this.#executions.listByState(states);
  }

  async updateExecution(
    id: string,
    patch: Partial<
      Pick<ExecutionRecord, 'state' | 'epoch' | 'pid' | 'processStartTime' | 'error' | 'endedAt'>
    > & {
      now: number;
    },
    fence?: ExecutionFence,
  ): Promise<ExecutionRecord> {
    return this.#executions.update(id, patch, fence);
  }

  async addInput(input: {
    id: string;
    sessionId: string;
    messageId: string;
    text: string;
    now: number;
  }): Promise<{ input: InputRecord; created: boolean }> {
    return this.#inputs.add(input);
  }

  async getInput(sessionId: string, messageId: string): Promise<InputRecord | null> {
    return this.#inputs.get(sessionId, messageId);
  }

  async listInputs(sessionId: string, options: { states?: DeliveryState[] } = {}): Promise<InputRecord[]> {
    return this.#inputs.list(sessionId, options);
  }

  async updateInputStates(options: {
    sessionId: string;
    inputIds: string[];
    from: DeliveryState[];
    to: DeliveryState;
    executionId?: string | null;
    epoch?: number;
    now: number;
  }): Promise<InputRecord[]> {
    return this.#inputs.updateStates(options);
  }

  async appendEvents(
    sessionId: string,
    events: NewEvent[],
    options: { epoch?: number; now: number },
  ): Promise<EventRecord[]> {
    return this.#events.append(sessionId, events, options);
  }

  async readEvents(
    sessionId: string,
    options: { after?: number; limit?: number } = {},
  ): Promise<EventRecord[]> {
    return this.#events.read(sessionId, options);
  }

  async lastCursor(sessionId: string): Promise<number> {
    return this.#events.lastCursor(sessionId);
  }

  async createInteraction(
    interaction: Omit<InteractionRecord, 'state' | 'answer' | 'answeredAt'>,
    fence?: { epoch: number },
  ): Promise<InteractionRecord> {
    return this.#interactions.create(interaction, fence);
  }

  async getInteraction(id: string): Promise<InteractionRecord | null> {
    return this.#interactions.get(id);
  }

  async listInteractions(
    options: { sessionId?: string; state?: InteractionState } = {},
  ): Promise<InteractionRecord[]> {
    return this.#interactions.list(options);
  }

  async answerInteraction(
    id: string,
    answer: Record<string, unknown>,
    now: number,
  ): Promise<InteractionRecord> {
    return this.#interactions.answer(id, answer, now);
  }

  async appendTranscript(key: TranscriptKey, entries: Record<string, unknown>[]): Promise<void> {
    this.#transcripts.append(key, entries);
  }

  async loadTranscript(key: TranscriptKey): Promise<Record<string, unknown>[] | null> {
    return this.#transcripts.load(key);
  }

  async listTranscripts(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    return this.#transcripts.list(projectKey);
  }

  async deleteTranscript(key: TranscriptKey): Promise<void> {
    this.#transcripts.delete(key);
  }

  async listTranscriptSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return this.#transcripts.listSubkeys(key);
  }

  async saveA2aTask(task: Omit<A2aTaskRecord, 'updatedAt'> & { now: number }): Promise<void> {
    this.#a2a.saveTask(task);
  }

  async getA2aTask(id: string): Promise<A2aTaskRecord | null> {
    return this.#a2a.getTask(id);
  }

  async listA2aTasks(options: ListA2aTasksOptions = {}): Promise<{ tasks: A2aTaskRecord[]; total: number }> {
    return this.#a2a.listTasks(options);
  }

  async saveA2aPushConfig(config: Omit<A2aPushConfigRecord, 'createdAt'> & { now: number }): Promise<void> {
    this.#a2a.savePushConfig(config);
  }

  async listA2aPushConfigs(taskId: string): Promise<A2aPushConfigRecord[]> {
    return this.#a2a.listPushConfigs(taskId);
  }

  async deleteA2aPushConfig(options: { taskId: string; id?: string }): Promise<void> {
    this.#a2a.deletePushConfig(options);
  }

  async ping(): Promise<void> {
    this.#connection.read(() => this.#connection.statement('SELECT 1').get());
  }

  async close(): Promise<void> {
    this.#connection.close();
  }
}
