/**
 * The part of `codex app-server`'s protocol agentd speaks, written by hand from the bindings that
 * the pinned `@openai/codex` (0.163.0) generates (`codex app-server generate-ts`, without
 * `--experimental`): only stable methods and fields. `protocol.test.ts` checks every name here
 * against the JSON schema the installed executable generates, so an upgrade that renames one
 * fails there first.
 */

/** The client requests agentd sends. */
export const clientMethods = {
  initialize: 'initialize',
  threadStart: 'thread/start',
  threadResume: 'thread/resume',
  threadItemsList: 'thread/items/list',
  threadInjectItems: 'thread/inject_items',
  turnStart: 'turn/start',
  turnSteer: 'turn/steer',
  turnInterrupt: 'turn/interrupt',
  commandExec: 'command/exec',
} as const;

/** The client notification that ends the handshake. */
export const initializedNotification = 'initialized';

/** The server requests agentd answers with a person's decision. */
export const approvalMethods = {
  commandExecution: 'item/commandExecution/requestApproval',
  fileChange: 'item/fileChange/requestApproval',
} as const;

/** Other server requests: answered at once (nobody is asked), so that no turn waits for them. */
export const otherServerMethods = {
  userInput: 'item/tool/requestUserInput',
  elicitation: 'mcpServer/elicitation/request',
  permissions: 'item/permissions/requestApproval',
} as const;

/** The server notifications agentd reads. */
export const notificationMethods = {
  turnStarted: 'turn/started',
  turnCompleted: 'turn/completed',
  itemStarted: 'item/started',
  itemCompleted: 'item/completed',
  agentMessageDelta: 'item/agentMessage/delta',
  tokenUsage: 'thread/tokenUsage/updated',
  planUpdated: 'turn/plan/updated',
  error: 'error',
  warning: 'warning',
  serverRequestResolved: 'serverRequest/resolved',
} as const;

export type AskForApproval = 'untrusted' | 'on-request' | 'never';
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

export type SandboxPolicy =
  | { type: 'dangerFullAccess' }
  | { type: 'readOnly'; networkAccess: boolean }
  | {
      type: 'workspaceWrite';
      writableRoots: string[];
      networkAccess: boolean;
      excludeTmpdirEnvVar: boolean;
      excludeSlashTmp: boolean;
    };

export interface InitializeParams {
  clientInfo: { name: string; title: string | null; version: string };
  capabilities: { experimentalApi: boolean; requestAttestation: boolean } | null;
}

/** What `thread/start` and `thread/resume` both take. */
export interface ThreadSettings {
  model?: string | null;
  cwd?: string | null;
  approvalPolicy?: AskForApproval | null;
  sandbox?: SandboxMode | null;
  developerInstructions?: string | null;
}

export interface ThreadResumeParams extends ThreadSettings {
  threadId: string;
  excludeTurns?: boolean;
}

export interface Thread {
  id: string;
  path: string | null;
  cwd: string;
}

export interface ThreadOpenedResponse {
  thread: Thread;
  model: string;
  cwd: string;
  approvalPolicy: unknown;
  sandbox: unknown;
}

export type UserInputItem = { type: 'text'; text: string; text_elements: unknown[] };

export interface TurnStartParams {
  threadId: string;
  input: UserInputItem[];
}

export interface TurnStartResponse {
  turn: Turn;
}

export interface TurnSteerParams {
  threadId: string;
  input: UserInputItem[];
  expectedTurnId: string;
}

export interface TurnInterruptParams {
  threadId: string;
  turnId: string;
}

export interface ThreadInjectItemsParams {
  threadId: string;
  /** Raw Responses API items appended to the thread's model-visible history. */
  items: unknown[];
}

export interface ThreadItemsListParams {
  threadId: string;
  cursor?: string | null;
  limit?: number | null;
}

export interface ThreadItemsListResponse {
  data: Array<{ turnId: string; item: ThreadItem }>;
  nextCursor: string | null;
}

export interface CommandExecParams {
  command: string[];
  cwd?: string | null;
  sandboxPolicy?: SandboxPolicy | null;
  timeoutMs?: number | null;
  disableTimeout?: boolean;
}

export interface CommandExecResponse {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type TurnStatus = 'completed' | 'interrupted' | 'failed' | 'inProgress';

export interface TurnError {
  message: string;
  /** A string, or an object such as `{ httpConnectionFailed: { httpStatusCode: 401 } }`. */
  codexErrorInfo: unknown;
  additionalDetails: string | null;
}

export interface Turn {
  id: string;
  status: TurnStatus;
  error: TurnError | null;
}

export type CommandExecutionStatus = 'inProgress' | 'completed' | 'failed' | 'declined';

export interface FileUpdateChange {
  path: string;
  kind: { type: 'add' } | { type: 'delete' } | { type: 'update'; move_path: string | null };
  diff: string;
}

/** The items agentd maps; the server sends others too (they become `agent.native`). */
export type ThreadItem =
  | { type: 'userMessage'; id: string }
  | { type: 'agentMessage'; id: string; text: string }
  | { type: 'reasoning'; id: string; summary: string[]; content: string[] }
  | {
      type: 'commandExecution';
      id: string;
      command: string;
      cwd: string;
      status: CommandExecutionStatus;
      aggregatedOutput: string | null;
      exitCode: number | null;
    }
  | {
      type: 'fileChange';
      id: string;
      changes: FileUpdateChange[];
      status: CommandExecutionStatus;
    }
  | {
      type: 'mcpToolCall';
      id: string;
      server: string;
      tool: string;
      status: 'inProgress' | 'completed' | 'failed';
      arguments: unknown;
      result: { content: unknown[] } | null;
      error: { message: string } | null;
    }
  | { type: 'webSearch'; id: string; query: string }
  | { type: 'plan'; id: string; text: string }
  | { type: 'contextCompaction'; id: string };

export interface TurnNotification {
  threadId: string;
  turn: Turn;
}

export interface ItemNotification {
  item: ThreadItem;
  threadId: string;
  turnId: string;
}

export interface AgentMessageDeltaNotification {
  threadId: string;
  turnId: string;
  itemId: string;
  delta: string;
}

export interface TokenUsageBreakdown {
  totalTokens: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}

export interface TokenUsageNotification {
  threadId: string;
  turnId: string;
  tokenUsage: { total: TokenUsageBreakdown; last: TokenUsageBreakdown };
}

export interface ErrorNotification {
  error: TurnError;
  willRetry: boolean;
  threadId: string;
  turnId: string;
}

export interface WarningNotification {
  threadId: string | null;
  message: string;
}

export interface ServerRequestResolvedNotification {
  threadId: string;
  requestId: string | number;
}

export interface CommandApprovalParams {
  threadId: string;
  turnId: string;
  /** The command item's id, which is the model's call id. */
  itemId: string;
  reason?: string | null;
  command?: string | null;
  cwd?: string | null;
}

export interface FileChangeApprovalParams {
  threadId: string;
  turnId: string;
  itemId: string;
  reason?: string | null;
  grantRoot?: string | null;
}

/** `acceptForSession` exists too; agentd never sends it (its own rules decide later uses). */
export type ApprovalDecision = 'accept' | 'decline' | 'cancel';
