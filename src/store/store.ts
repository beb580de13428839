/**
 * The Store: one interface, several implementations (SQLite by default, PostgreSQL for several nodes).
 * Every implementation runs `runStoreContract` (src/store/store-contract.ts).
 *
 * All times are epoch milliseconds. JSON columns hold plain JSON values.
 * Writes that a worker makes are fenced by its lease epoch: when `epoch` is given and is not the
 * session's current lease epoch, the write is refused with `LeaseLostError` and changes nothing.
 */

import type { ChangeFeed } from './change-feed.js';
import type { ChatMessageStorage } from './chat-message-storage.js';
import type {
  BudgetStorage,
  ChannelStorage,
  GrantStorage,
  OrganizationStorage,
  ProviderStorage,
  RoleStorage,
} from './org-storage.js';
import type { PermissionRuleStorage } from './rule-storage.js';
import type { ScheduleStorage } from './schedule-storage.js';
import type { WebhookStorage } from './webhook-storage.js';

export const sessionStates = ['active', 'archived'] as const;
export type SessionState = (typeof sessionStates)[number];
export const executionStates = ['starting', 'running', 'idle', 'stopping', 'stopped', 'failed'] as const;
export type ExecutionState = (typeof executionStates)[number];
/** States in which an execution's worker holds (or is about to take) the session: at most one per session. */
/** Which of a session's events `readEvents` returns. */
export interface ReadEventsOptions {
  /** Only events with a cursor past this one. @default 0 */
  after?: number;
  /** At most this many. @default 1000 */
  limit?: number;
  /** Only events of these types. @default every type */
  types?: readonly string[];
}

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
  /** The provider profile's name (`env`, `offline`, or a stored profile). */
  provider: string;
  /** The organization of its role; null for a session made without a role. */
  organization: string | null;
  role: string | null;
  /** The role version the session runs under (its execution surface is frozen in `config`). */
  roleVersion: number | null;
  model: string | null;
  cwd: string;
  /** Total cost (USD) of its completed turns, summed from its `agent.turn.completed` events. */
  costUsd: number;
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
  organization?: string | null;
  role?: string | null;
  roleVersion?: number | null;
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

/*
 * The store's methods, one interface per concern. Each method is declared here once; an
 * implementation builds one object per part (such as `sqliteSessions(connection)`) and the store is
 * those parts spread into one object, so no method is declared again to delegate it.
 */

export interface SessionStorage {
  /**
   * Creates a session. With a `launchId` that already exists, returns the existing session and
   * `created: false` when `cwd`, `config`, `provider`, `organization`, `role` and `model` are equal
   * (not `roleVersion`: a retry after the role changed still finds its session), and throws
   * `ConflictError` otherwise.
   */
  createSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean }>;
  getSession(id: string): Promise<SessionRecord | null>;
  /** Newest first; with `organization`/`role`, only the sessions of that role (any version). */
  listSessions(options?: {
    state?: SessionState;
    limit?: number;
    organization?: string;
    role?: string;
  }): Promise<SessionRecord[]>;
  updateSession(
    id: string,
    patch: Partial<Pick<SessionRecord, 'state' | 'nativeSessionId' | 'title'>> & { now: number },
  ): Promise<SessionRecord>;
}

/**
 * Session leases. A released or expired lease keeps its epoch, so the next acquisition is always one
 * higher than every epoch before it and stale writers stay fenced out.
 */
export interface LeaseStorage {
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
}

/** Executions, listed in creation order. */
export interface ExecutionStorage {
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
}

/** The input journal, listed in the order inputs were accepted. */
export interface InputStorage {
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
    /** Journaled in the same transaction when the input is new (its `input.accepted`). */
    event?: NewEvent;
    /**
     * The live worker that journals the input itself also starts its turn, in the same transaction
     * (decision 0132): a new input is stored `dispatching` for that execution, and the execution
     * goes to `running`, when the execution is `idle` and no earlier input of the session waits
     * (`accepted` or `dispatching`); otherwise it is stored `accepted`. Fenced by `epoch`.
     */
    dispatch?: { executionId: string; epoch: number };
  }): Promise<{ input: InputRecord; created: boolean; events: EventRecord[] }>;
  getInput(sessionId: string, messageId: string): Promise<InputRecord | null>;
  listInputs(sessionId: string, options?: { states?: DeliveryState[] }): Promise<InputRecord[]>;
  /**
   * Moves inputs to `to` when their state is one of `from`; returns the inputs it changed, in
   * journal order. Fenced by `epoch` when given. `events` are journaled in the same transaction
   * when at least one input changed.
   */
  updateInputStates(options: {
    sessionId: string;
    inputIds: string[];
    from: DeliveryState[];
    to: DeliveryState;
    executionId?: string | null;
    epoch?: number;
    now: number;
    events?: NewEvent[];
  }): Promise<InputRecord[]>;
  /**
   * Starts a turn on an accepted input in one transaction, fenced by `epoch`: the execution goes
   * to `running` (only from `idle` or `running`) and the input from `accepted` to `dispatching`.
   * When the execution is in another state (a stop was asked for) or the input is no longer
   * accepted, nothing changes and `input` is null.
   */
  dispatchInput(options: {
    sessionId: string;
    inputId: string;
    executionId: string;
    epoch: number;
    now: number;
  }): Promise<{ execution: ExecutionRecord; input: InputRecord | null }>;
}

/** The event journal: per-session cursors 1, 2, 3... with no gaps. */
export interface EventStorage {
  /**
   * Appends events with the next cursors, in one transaction. Fenced by `epoch` when given.
   * Returns the stored records in order. The `costUsd` of an `agent.turn.completed` event is added
   * to the session's `costUsd` in the same transaction.
   */
  appendEvents(
    sessionId: string,
    events: NewEvent[],
    options: { epoch?: number; now: number },
  ): Promise<EventRecord[]>;
  /**
   * Events with cursor > `after` (default 0), oldest first, at most `limit` (default 1000); with
   * `types`, only events of those types (the others are skipped without being read).
   */
  readEvents(sessionId: string, options?: ReadEventsOptions): Promise<EventRecord[]>;
  /** The highest cursor of the session, 0 when it has no events. */
  lastCursor(sessionId: string): Promise<number>;
  /**
   * The journals of all sessions past a cursor each, in one query (what journal metrics read): for
   * a session in `after`, its events with cursor > its entry; for any other, all of its events.
   * Ordered by session id, then cursor; at most `limit` (default 1000).
   */
  readEventsAcross(options: { after: ReadonlyMap<string, number>; limit?: number }): Promise<EventRecord[]>;
  /** Every session's highest cursor (0 when it has no events), in one query. */
  lastCursors(): Promise<Map<string, number>>;
}

/** Approvals and questions, listed in creation order. */
export interface InteractionStorage {
  /** Fenced by `epoch` when given. Idempotent on `id`: a second create returns the first. */
  createInteraction(
    interaction: Omit<InteractionRecord, 'state' | 'answer' | 'answeredAt'>,
    fence?: { epoch: number },
  ): Promise<InteractionRecord>;
  getInteraction(id: string): Promise<InteractionRecord | null>;
  listInteractions(options?: { sessionId?: string; state?: InteractionState }): Promise<InteractionRecord[]>;
  /**
   * Records the answer if the interaction is pending; `ConflictError` if it was answered already.
   * Not fenced: a person answers, not a worker.
   */
  answerInteraction(id: string, answer: Record<string, unknown>, now: number): Promise<InteractionRecord>;
}

/**
 * The SDK SessionStore protocol: transcripts mirrored by `claude`, read back on resume. Subpath
 * undefined is the main transcript.
 */
export interface TranscriptStorage {
  appendTranscript(key: TranscriptKey, entries: Record<string, unknown>[]): Promise<void>;
  /** Null for a key that was never written. */
  loadTranscript(key: TranscriptKey): Promise<Record<string, unknown>[] | null>;
  /**
   * The end of a transcript: its entries from the last one with a `uuid` on (each turn adds new
   * ones), or all of them when none has one; null for a key never written. What a resume checks
   * without reading a long transcript whole.
   */
  loadTranscriptTail(key: TranscriptKey): Promise<Record<string, unknown>[] | null>;
  /** Main transcripts only, newest first, as the SDK's listSessions expects. */
  listTranscripts(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  /** Deleting the main transcript deletes its subagent transcripts too, as the SDK's in-memory store does. */
  deleteTranscript(key: TranscriptKey): Promise<void>;
  listTranscriptSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]>;
}

/** Whether this node currently does a cluster-wide duty; see `Store.leadership`. */
export interface Leadership {
  readonly leader: boolean;
  /** Resolves once the first attempt to lead has been made. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface Store
  extends SessionStorage,
    ChatMessageStorage,
    ProviderStorage,
    OrganizationStorage,
    RoleStorage,
    ChannelStorage,
    GrantStorage,
    BudgetStorage,
    LeaseStorage,
    ExecutionStorage,
    InputStorage,
    EventStorage,
    InteractionStorage,
    PermissionRuleStorage,
    TranscriptStorage,
    ScheduleStorage,
    WebhookStorage {
  /** A short name of the implementation, such as `sqlite` or `postgres`. */
  readonly kind: string;
  /** Wakes readers when a session changes; without one, readers poll. */
  readonly changes?: ChangeFeed;
  /**
   * Leadership of a cluster-wide duty among the nodes sharing this store (PostgreSQL). A store
   * without it is only ever used by one node, which then does every duty.
   */
  leadership?(duty: string): Leadership;
  /** Cheap round-trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
