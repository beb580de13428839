/**
 * The Store: one interface, several implementations (SQLite by default, PostgreSQL for several nodes).
 * Every implementation runs `runStoreContract` (src/store/store-contract.ts).
 *
 * All times are epoch milliseconds. JSON columns hold plain JSON values.
 * Writes that a worker makes are fenced by its lease epoch: when `epoch` is given and is not the
 * session's current lease epoch, the write is refused with `LeaseLostError` and changes nothing.
 */

export const sessionStates = ['active', 'archived'] as const;
export type SessionState = (typeof sessionStates)[number];
export const executionStates = ['starting', 'running', 'idle', 'stopping', 'stopped', 'failed'] as const;
export type ExecutionState = (typeof executionStates)[number];
/** States in which an execution's worker holds (or is about to take) the session: at most one per session. */
export const liveExecutionStates: readonly ExecutionState[] = ['starting', 'running', 'idle', 'stopping'];
export const deliveryStates = ['accepted', 'dispatching', 'delivered', 'uncertain'] as const;
export type DeliveryState = (typeof deliveryStates)[number];
export const interactionKinds = ['approval', 'question'] as const;
export type InteractionKind = (typeof interactionKinds)[number];
export const interactionStates = ['pending', 'answered'] as const;
export type InteractionState = (typeof interactionStates)[number];

export interface SessionRecord {
  id: string;
  state: SessionState;
  provider: string;
  role: string | null;
  model: string | null;
  cwd: string;
  /** The launch configuration (JSON), fixed at creation. */
  config: Record<string, unknown>;
  /** Client-chosen id that makes creation idempotent; null when none was given. */
  launchId: string | null;
  /** Claude's own session id: the resume cursor. Null until the first worker has started. */
  nativeSessionId: string | null;
  title: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewSession {
  id: string;
  provider: string;
  role?: string | null;
  model?: string | null;
  cwd: string;
  config: Record<string, unknown>;
  launchId?: string | null;
  title?: string | null;
  now: number;
}

export interface ExecutionRecord {
  id: string;
  sessionId: string;
  state: ExecutionState;
  /** The lease epoch this execution holds (0 until the worker has taken the lease). */
  epoch: number;
  pid: number | null;
  /** Process start time as read from /proc (clock ticks since boot), to tell a reused PID apart. */
  processStartTime: string | null;
  error: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

export interface InputRecord {
  /** agentd's id for the input; also the uuid given to the SDK, which echoes it back on delivery. */
  id: string;
  sessionId: string;
  /** The client's message id, unique within the session. */
  messageId: string;
  text: string;
  state: DeliveryState;
  /** The execution that dispatched it, once dispatched. */
  executionId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface EventRecord {
  sessionId: string;
  /** Per-session, starts at 1, grows by exactly 1 with each event, across executions. */
  cursor: number;
  type: string;
  data: unknown;
  executionId: string | null;
  createdAt: number;
}

export interface NewEvent {
  type: string;
  data: unknown;
  executionId?: string | null;
}

export interface InteractionRecord {
  id: string;
  sessionId: string;
  executionId: string | null;
  kind: InteractionKind;
  toolName: string;
  toolUseId: string | null;
  /** The full request: tool input, suggestions, questions. */
  request: Record<string, unknown>;
  state: InteractionState;
  answer: Record<string, unknown> | null;
  createdAt: number;
  answeredAt: number | null;
}

export interface LeaseRecord {
  sessionId: string;
  owner: string;
  epoch: number;
  expiresAt: number;
  pid: number | null;
  processStartTime: string | null;
}

/** Conditions on an execution update: the writer's lease epoch, and the states the state may change from. */
export interface ExecutionFence {
  epoch?: number;
  stateFrom?: readonly ExecutionState[];
}

export interface AcquireLeaseOptions {
  sessionId: string;
  owner: string;
  ttlMs: number;
  pid: number | null;
  processStartTime: string | null;
  now: number;
}

/** Key of one transcript in the SDK's SessionStore protocol. */
export interface TranscriptKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

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

export interface Store {
  /** A short name of the implementation, such as `sqlite` or `postgres`. */
  readonly kind: string;

  /**
   * Creates a session. With a `launchId` that already exists, returns the existing session and
   * `created: false` when `cwd`, `config`, `provider`, `role` and `model` are equal, and throws
   * `ConflictError` otherwise.
   */
  createSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean }>;
  getSession(id: string): Promise<SessionRecord | null>;
  listSessions(options?: { state?: SessionState; limit?: number }): Promise<SessionRecord[]>;
  updateSession(
    id: string,
    patch: Partial<Pick<SessionRecord, 'state' | 'nativeSessionId' | 'title'>> & { now: number },
  ): Promise<SessionRecord>;

  /**
   * Takes the session's lease when it has none or the current one has expired (at `now`). Each
   * successful acquisition has an epoch one higher than any before on that session. Returns null
   * when another live owner holds it. Atomic: of two racing callers, exactly one wins.
   * When `owner` is an execution's id, that execution takes the lease once: not after it held one
   * (epoch > 0), not once it has ended, and not from a process other than its recorded `pid`.
   */
  acquireLease(options: AcquireLeaseOptions): Promise<LeaseRecord | null>;
  /** Extends the lease if `epoch` is still current; false (and no change) otherwise. */
  renewLease(options: { sessionId: string; epoch: number; ttlMs: number; now: number }): Promise<boolean>;
  /** Drops the lease if `epoch` is still current; a no-op otherwise. */
  releaseLease(options: { sessionId: string; epoch: number }): Promise<void>;
  getLease(sessionId: string): Promise<LeaseRecord | null>;

  createExecution(execution: { id: string; sessionId: string; now: number }): Promise<ExecutionRecord>;
  getExecution(id: string): Promise<ExecutionRecord | null>;
  listExecutions(sessionId: string): Promise<ExecutionRecord[]>;
  /** Executions in any of the given states, across sessions (the supervisor scans `starting`/`running`/`idle`/`stopping`). */
  listExecutionsByState(states: ExecutionState[]): Promise<ExecutionRecord[]>;
  /**
   * Fenced by `epoch` when given. With `stateFrom`, the state changes only when the current state
   * is one of those (the other fields change regardless): a worker's own transition (`idle`,
   * `running`) never overwrites a stop someone else asked for meanwhile.
   */
  updateExecution(
    id: string,
    patch: Partial<
      Pick<ExecutionRecord, 'state' | 'epoch' | 'pid' | 'processStartTime' | 'error' | 'endedAt'>
    > & {
      now: number;
    },
    fence?: ExecutionFence,
  ): Promise<ExecutionRecord>;

  /**
   * Journals a user input. Same `messageId` and same text: returns the existing input with
   * `created: false`. Same `messageId`, other text: `ConflictError`.
   */
  addInput(input: {
    id: string;
    sessionId: string;
    messageId: string;
    text: string;
    now: number;
  }): Promise<{ input: InputRecord; created: boolean }>;
  getInput(sessionId: string, messageId: string): Promise<InputRecord | null>;
  listInputs(sessionId: string, options?: { states?: DeliveryState[] }): Promise<InputRecord[]>;
  /**
   * Moves inputs to `to` when their state is one of `from`; returns the inputs it changed.
   * Fenced by `epoch` when given.
   */
  updateInputStates(options: {
    sessionId: string;
    inputIds: string[];
    from: DeliveryState[];
    to: DeliveryState;
    executionId?: string | null;
    epoch?: number;
    now: number;
  }): Promise<InputRecord[]>;

  /**
   * Appends events with the next cursors, in one transaction. Fenced by `epoch` when given.
   * Returns the stored records in order.
   */
  appendEvents(
    sessionId: string,
    events: NewEvent[],
    options: { epoch?: number; now: number },
  ): Promise<EventRecord[]>;
  /** Events with cursor > `after` (default 0), oldest first, at most `limit` (default 1000). */
  readEvents(sessionId: string, options?: { after?: number; limit?: number }): Promise<EventRecord[]>;
  /** The highest cursor of the session, 0 when it has no events. */
  lastCursor(sessionId: string): Promise<number>;

  /** Fenced by `epoch` when given. Idempotent on `id`: a second create returns the first. */
  createInteraction(
    interaction: Omit<InteractionRecord, 'state' | 'answer' | 'answeredAt'>,
    fence?: { epoch: number },
  ): Promise<InteractionRecord>;
  getInteraction(id: string): Promise<InteractionRecord | null>;
  listInteractions(options?: { sessionId?: string; state?: InteractionState }): Promise<InteractionRecord[]>;
  /** Records the answer if the interaction is pending; `ConflictError` if it was answered already. */
  answerInteraction(id: string, answer: Record<string, unknown>, now: number): Promise<InteractionRecord>;

  /** The SDK SessionStore protocol: transcripts mirrored by `claude`, read back on resume. */
  appendTranscript(key: TranscriptKey, entries: Record<string, unknown>[]): Promise<void>;
  loadTranscript(key: TranscriptKey): Promise<Record<string, unknown>[] | null>;
  listTranscripts(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  deleteTranscript(key: TranscriptKey): Promise<void>;
  listTranscriptSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]>;

  /** Creates or replaces the task with this id. */
  saveA2aTask(task: Omit<A2aTaskRecord, 'updatedAt'> & { now: number }): Promise<void>;
  getA2aTask(id: string): Promise<A2aTaskRecord | null>;
  /** A page of tasks, newest status first (ties by id, descending), and how many match without paging. */
  listA2aTasks(options?: ListA2aTasksOptions): Promise<{ tasks: A2aTaskRecord[]; total: number }>;
  /** Creates or replaces the config with this task id and id; a replaced one keeps its place in the list. */
  saveA2aPushConfig(config: Omit<A2aPushConfigRecord, 'createdAt'> & { now: number }): Promise<void>;
  /** The task's configs in creation order. */
  listA2aPushConfigs(taskId: string): Promise<A2aPushConfigRecord[]>;
  /** Deletes one config, or all of the task's when `id` is omitted; unknown ones are a no-op. */
  deleteA2aPushConfig(options: { taskId: string; id?: string }): Promise<void>;

  /** Cheap round-trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
