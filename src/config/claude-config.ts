export const permissionModes = [
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'dontAsk',
  'auto',
] as const;
export type PermissionMode = (typeof permissionModes)[number];

export const effortLevels = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof effortLevels)[number];

export const settingSources = ['user', 'project', 'local'] as const;
export type SettingSource = (typeof settingSources)[number];

/** Claude Code's own system prompt with text appended, or a whole replacement string. */
export type SystemPromptConfig = string | { preset: 'claude_code'; append?: string };

export interface RetryConfig {
  /** Retries of a failed turn on transient errors; 0 disables. @default 3 */
  maxRetries: number;
  /** First backoff delay. @default 2000 */
  initialDelayMs: number;
  /** Largest backoff delay. @default 30000 */
  maxDelayMs: number;
}

/**
 * Everything that shapes one Claude session. One typed config, filled from a config file, flags
 * and the kagent-style `CLAUDE_*` variables (src/config/env-config.ts).
 */
export interface ClaudeConfig {
  /** @default the SDK's default model */
  model?: string;
  fallbackModel?: string;
  /** The tools Claude can see. @default Claude Code's own set */
  tools?: string[];
  /** Tools that run without asking. @default none */
  allowedTools?: string[];
  /** Tools removed entirely. @default none */
  disallowedTools?: string[];
  /** @default Claude Code's preset */
  systemPrompt?: SystemPromptConfig;
  maxTurns?: number;
  /** @default 'default' (Claude's ordinary permission behaviour) */
  permissionMode?: PermissionMode;
  maxBudgetUsd?: number;
  effort?: EffortLevel;
  additionalDirectories?: string[];
  mcpServers?: Record<string, Record<string, unknown>>;
  /** Only use `mcpServers`; ignore .mcp.json files. @default false */
  strictMcpConfig?: boolean;
  /** @default process.cwd() */
  cwd?: string;
  /** Extra environment for `claude`; never written to the store. */
  env?: Record<string, string>;
  /** Native session id to continue. */
  resume?: string;
  /** Which settings files `claude` reads. @default none (SDK isolation) */
  settingSources?: SettingSource[];
  /** Skills to enable: names, or 'all'. @default none */
  skills?: string[] | 'all';
  /**
   * Content-addressed skills (`sha256:<hex>` digests) the session gets, and no others: the worker
   * verifies and materializes them. Set from the session's role.
   */
  skillDigests?: string[];
  /** With `skillDigests`: also give the user's own skills folder. @default false */
  userSkills?: boolean;
  /** Local plugin folders for `claude` (the worker's materialized skills); never stored. */
  plugins?: string[];
  /** Stream text deltas as `agent.text_delta` events. @default false */
  includePartialMessages?: boolean;
  /** Overall limit for one turn in seconds; time spent waiting for a person does not count. 0 = none. @default 600 */
  timeoutSeconds: number;
  retry: RetryConfig;
}

export const defaultRetry: RetryConfig = { maxRetries: 3, initialDelayMs: 2000, maxDelayMs: 30_000 };

export function defaultClaudeConfig(): ClaudeConfig {
  return { timeoutSeconds: 600, retry: { ...defaultRetry } };
}
