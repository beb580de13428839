export type {
  AgentBackend,
  AgentSession,
  BackendName,
  PermissionDecision,
  PermissionHandler,
  PermissionRequest,
  SessionSpec,
  StartSessionOptions,
  UserInput,
} from './backends/agent-backend.js';
export { backendNames } from './backends/agent-backend.js';
export type {
  AgentErrorInfo,
  AgentEvent,
  AgentEventType,
  ErrorCode,
  ModelUsage,
  TokenUsage,
} from './backends/agent-event.js';
export { classifyError, classifyResult, classifyStatus } from './backends/claude/classify.js';
export { ClaudeBackend } from './backends/claude/claude-backend.js';
export { convertMessage } from './backends/claude/convert.js';
export type { CodexBackendOptions } from './backends/codex/codex-backend.js';
export { CodexBackend } from './backends/codex/codex-backend.js';
export { backendOf, sessionSpecOf } from './backends/session-spec.js';
export type {
  ClaudeConfig,
  EffortLevel,
  PermissionMode,
  RetryConfig,
  SystemPromptConfig,
} from './config/claude-config.js';
export { defaultClaudeConfig } from './config/claude-config.js';
export { claudeConfigFromEnv } from './config/env-config.js';
export {
  AgentdError,
  ConfigError,
  ConflictError,
  InvalidInputError,
  JournalCorruptError,
  LeaseLostError,
  NotFoundError,
  SessionBusyError,
  StateError,
  StoreError,
} from './errors/index.js';
export type {
  JournalData,
  JournalEvent,
  JournalEventType,
  JournalRecord,
  JournalRecordOf,
  RuntimeEvent,
} from './journal/journal-event.js';
export type { Answer } from './runtime/answers.js';
export type {
  CreateSessionOptions,
  EventsOptions,
  ExecutionHere,
  RunHereOptions,
  RuntimeOptions,
  SendOptions,
  SessionDetails,
} from './runtime/runtime.js';
export { createRuntime, Runtime } from './runtime/runtime.js';
export type {
  DeliveryState,
  EventRecord,
  ExecutionRecord,
  ExecutionState,
  InputRecord,
  InteractionRecord,
  SessionRecord,
  Store,
} from './store/store.js';
export { version } from './version.js';
