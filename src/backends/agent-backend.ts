import type { ZodRawShape } from 'zod';
import type { RetryConfig } from '../config/claude-config.js';
import { AgentdError } from '../errors/agentd-error.js';
import type { AgentEvent } from './agent-event.js';

/** A user message for the agent. `id` is a UUID; the backend reports it back on delivery. */
export interface UserInput {
  id: string;
  text: string;
  /**
   * No new message: resume the session so that it continues the tool uses it left deferred
   * (waiting for a person). `text` is ignored.
   */
  continueDeferred?: boolean;
}

export interface PermissionRequest {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string | null;
  /** Permission rule updates the backend suggests for "always allow". */
  suggestions: unknown[];
  blockedPath: string | null;
  signal: AbortSignal;
}

export type PermissionDecision =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: unknown[] }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

export type PermissionHandler = (request: PermissionRequest) => Promise<PermissionDecision>;

/**
 * A tool agentd itself offers the agent, run in the worker's process (the Claude backend serves
 * these as the in-process MCP server `agentd`: the agent sees `mcp__agentd__NAME`).
 */
export interface HostTool {
  name: string;
  description: string;
  /** The input's fields, as a zod shape. */
  input: ZodRawShape;
  run(input: Record<string, unknown>): Promise<{ text: string; isError?: boolean }>;
}

/** The backends agentd runs: a session and a role name one; `claude` unless they say otherwise. */
export const backendNames = ['claude', 'codex'] as const;
export type BackendName = (typeof backendNames)[number];

/**
 * What every backend understands about a session, whatever runs it. Each backend maps it to its own
 * options (Claude's SDK options, Codex's thread options and config overrides); what only one backend
 * understands stays in `settings`, which the runtime never reads.
 */
export interface SessionSpec {
  /** @default the backend's default model */
  model?: string;
  /** The agent's working directory. @default process.cwd() */
  cwd?: string;
  /** Text the backend adds to its own system prompt (Claude's preset, Codex's developer instructions). */
  instructions?: string;
  /** Tools that run without asking. @default none */
  allowedTools?: string[];
  /**
   * How freely the agent acts: agentd's permission modes (`default`, `acceptEdits`, `plan`,
   * `bypassPermissions` …); Codex maps them to its sandbox modes.
   * @default 'default'
   */
  permissionMode?: string;
  /** The backend's own session id to continue (Claude's session id, Codex's thread id). */
  resume?: string;
  /** Environment for the agent's process (credentials, endpoint); never stored. */
  env?: Record<string, string>;
  /** Stream text deltas as `agent.text_delta` events. @default false */
  includePartialMessages?: boolean;
  /** Overall limit for one turn in seconds; 0 = none. */
  timeoutSeconds: number;
  retry: RetryConfig;
  /** The backend's own settings, as stored with the session: opaque to everything but that backend. @default {} */
  settings?: Record<string, unknown>;
}

/**
 * A tool use that an earlier process asked a person about and never saw finish (its worker died
 * while the person was asked, or before the result was recorded). Given to a backend with its own
 * transcripts (`transcripts: 'native'`), which continues it before the first turn.
 */
export interface WaitingToolUse {
  toolUseId: string;
  toolName: string;
  input: Record<string, unknown>;
  /**
   * The decision the earlier process handed the agent (its `agent.tool_permission`), if it did:
   * after `allow` the tool may have run, so it is never run again.
   */
  handedOver: 'allow' | 'deny' | null;
}

export interface StartSessionOptions {
  /** Tools of agentd's own for the agent. @default none */
  hostTools?: HostTool[];
  spec: SessionSpec;
  /** User messages, taken one turn at a time; the session ends when this ends. */
  inputs: AsyncIterable<UserInput>;
  /** Decides tool uses that the permission settings leave open. @default Claude's ordinary behaviour (deny when nobody can ask) */
  canUseTool?: PermissionHandler;
  /**
   * Asked before each tool use: a decision recorded for a tool use that an earlier process left
   * waiting for a person (it is resumed as a deferred tool use), or null to decide as usual.
   */
  resumeDeferredTool?: (toolUseId: string, signal: AbortSignal) => Promise<PermissionDecision | null>;
  /**
   * For a backend with native transcripts: the tool uses earlier processes left waiting for a person.
   * The first input is then `continueDeferred`; the backend asks `resumeDeferredTool` for each.
   * @default none
   */
  waitingToolUses?: WaitingToolUse[];
  /**
   * The store's transcripts (the SDK's SessionStore): where `claude` mirrors transcripts and
   * resumes from, and where the Codex backend keeps its threads' rollout files (0145).
   */
  sessionStore?: unknown;
  /** Receives `claude`'s stderr lines. */
  onStderr?: (line: string) => void;
  /** Resume from before a turn that was rolled back (see `AgentSession.rewind`). @default none */
  rewind?: RewindPoint;
  /**
   * Stop the backend's process (SIGSTOP) after this long idle between turns, and continue it
   * before the next input: a live idle session then uses no CPU. 0 = never. @default 0
   */
  freezeIdleAfterMs?: number;
}

/**
 * Where a rolled-back turn is cut off: the next turn resumes the native session at the entry
 * `before` (the last one before the dropped input's prompt), or starts a new native session when
 * `before` is null (the input was the first). The agent never sees the dropped turn again.
 */
export interface RewindPoint {
  inputId: string;
  before: string | null;
}

/** One running conversation: an async stream of events, with control. */
export interface AgentSession extends AsyncIterable<AgentEvent> {
  /** The backend's own session id, known after `session.started`. */
  readonly nativeSessionId: string | null;
  /** Stops the current turn; it ends with a `cancelled` error event. */
  interrupt(): Promise<void>;
  /**
   * Between turns: the next turn resumes from before the given input's turn. Only a backend that
   * can resume its native session at an earlier entry has it (Claude; not Codex, whose threads
   * cannot be cut, so the runtime refuses `rollback` for its sessions).
   */
  rewind?(point: RewindPoint): void;
  /** Ends the session and its process. */
  close(): Promise<void>;
}

/** What a backend needs to start its agent process before the session itself starts. */
export interface PrepareSessionOptions {
  /** The spec the session will be started with; a session started with another one starts afresh. */
  spec: SessionSpec;
  /** Where `claude` mirrors transcripts and resumes from (the SDK's SessionStore). */
  sessionStore?: unknown;
  /** Stop the prepared process (SIGSTOP) once it has booted and waited this long untaken; 0 = never. @default 0 */
  freezeIdleAfterMs?: number;
}

/** The runtime protocol every backend implements (the seeds' AgentRuntime). */
export interface AgentBackend {
  readonly name: BackendName;
  /**
   * Where the backend's transcripts live: `store`, mirrored through `sessionStore` (a session is
   * resumable only once its transcript is there), or `native`, the backend's own files (Codex's
   * `CODEX_HOME`, which the backend itself copies to and from `sessionStore`): the resume cursor
   * alone resumes it. @default 'store'
   */
  readonly transcripts?: 'store' | 'native';
  startSession(options: StartSessionOptions): AgentSession;
  /**
   * Starts the agent's process for the next `startSession` with the same config, so that it boots
   * while the caller does its own work (journal, lease). Optional: a backend without it starts
   * its process in `startSession`.
   */
  prepare?(options: PrepareSessionOptions): void;
  /** Closes a prepared process that no session took. */
  discardPrepared?(): void;
}

/**
 * The agent's process could not be started at all (a working directory that is not a directory,
 * a missing executable): the input of the turn provably never reached it.
 */
export class AgentStartError extends AgentdError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super({ code: 'agent_start_failed', message, cause: options.cause });
  }
}
