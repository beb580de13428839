/**
 * The one event vocabulary every backend speaks. Each event keeps the native message it came from
 * in `raw` (absent only on events agentd makes itself, such as a retry decided by agentd).
 */

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export interface ModelUsage extends TokenUsage {
  costUsd: number;
}

export type ErrorCode =
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'authentication'
  | 'permission'
  | 'invalid_request'
  | 'budget_exceeded'
  | 'max_turns'
  | 'context_overflow'
  | 'cancelled'
  | 'unknown';

export interface AgentErrorInfo {
  code: ErrorCode;
  message: string;
  transient: boolean;
  /** HTTP status of the API error, when there was one. */
  status?: number;
}

interface EventBase {
  /** The native message this event was made from. */
  raw?: unknown;
}

export interface SessionStartedEvent extends EventBase {
  type: 'session.started';
  /** The backend that runs the session (`claude`, `codex`). Absent in events written before Codex. */
  backend?: string;
  sessionId: string;
  model: string;
  tools: string[];
  cwd: string;
  permissionMode: string;
}

export interface MessageEvent extends EventBase {
  type: 'agent.message';
  text: string;
  messageId: string | null;
}

export interface ThinkingEvent extends EventBase {
  type: 'agent.thinking';
  thinking: string;
}

export interface ToolCallEvent extends EventBase {
  type: 'agent.tool_call';
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  /** One line a person can read, such as `Bash: ls -la`. */
  detail: string;
  /** Set when a subagent made the call. */
  parentToolUseId: string | null;
}

export interface ToolResultEvent extends EventBase {
  type: 'agent.tool_result';
  toolUseId: string;
  content: string;
  isError: boolean;
}

export interface TextDeltaEvent extends EventBase {
  type: 'agent.text_delta';
  text: string;
}

export interface RetryEvent extends EventBase {
  type: 'agent.retry';
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** Who retries: the agent's process retrying one API call (`claude`, `codex`), or `agentd` retrying the turn. */
  by: 'claude' | 'codex' | 'agentd';
  error: AgentErrorInfo;
}

export interface CompactedEvent extends EventBase {
  type: 'agent.compacted';
  trigger: 'manual' | 'auto';
  preTokens: number;
  postTokens: number | null;
}

export interface TurnCompletedEvent extends EventBase {
  type: 'agent.turn.completed';
  /** The SDK's result subtype: `success`, `error_max_turns`, `error_during_execution` … */
  subtype: string;
  isError: boolean;
  result: string | null;
  sessionId: string;
  usage: TokenUsage;
  costUsd: number;
  /**
   * True when agentd computed `costUsd` from a price table (Codex, whose API reports tokens, not
   * money) rather than the backend reporting it. @default false
   */
  costEstimated?: boolean;
  numTurns: number;
  durationMs: number;
  durationApiMs: number;
  modelUsage: Record<string, ModelUsage>;
  /** Ids of the inputs this turn answered (the SDK echoes the input uuids). */
  inputIds: string[];
}

export interface ErrorEvent extends EventBase {
  type: 'agent.error';
  error: AgentErrorInfo;
}

/**
 * The backend is about to hand the agent its decision on a tool use it asked a person (or a rule)
 * about. Journaled before the agent gets it: after a worker death, an `allow` here means the tool
 * may have run, and no decision here means it never did.
 */
export interface ToolPermissionEvent extends EventBase {
  type: 'agent.tool_permission';
  toolUseId: string;
  behavior: 'allow' | 'deny';
}

/** The SDK echoed an input's uuid: the input reached `claude`. */
export interface InputDeliveredEvent extends EventBase {
  type: 'input.delivered';
  inputId: string;
}

/** A native message with no presentation event of its own, kept whole. */
export interface NativeMessageEvent extends EventBase {
  type: 'claude.message';
  subtype: string;
}

/** A native event of a backend other than Claude with no presentation event of its own, kept whole. */
export interface BackendNativeEvent extends EventBase {
  type: 'agent.native';
  /** The backend it came from, such as `codex`. */
  backend: string;
  subtype: string;
}

export type AgentEvent =
  | SessionStartedEvent
  | MessageEvent
  | ThinkingEvent
  | ToolCallEvent
  | ToolResultEvent
  | TextDeltaEvent
  | RetryEvent
  | CompactedEvent
  | TurnCompletedEvent
  | ErrorEvent
  | ToolPermissionEvent
  | InputDeliveredEvent
  | NativeMessageEvent
  | BackendNativeEvent;

export type AgentEventType = AgentEvent['type'];
