import { type Command, InvalidArgumentError } from 'commander';
import { type BackendName, backendNames } from '../backends/agent-backend.js';
import { type ClaudeConfig, type PermissionMode, permissionModes } from '../config/claude-config.js';
import { claudeConfigFromEnv } from '../config/env-config.js';

export function parsePositiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of 1 or more');
  return parsed;
}

export function parseNonNegativeNumber(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError('expected a number of 0 or more');
  }
  return parsed;
}

export function parsePermissionMode(value: string): PermissionMode {
  if (!(permissionModes as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${permissionModes.join(', ')}`);
  }
  return value as PermissionMode;
}

export function parseBackend(value: string): BackendName {
  if (!(backendNames as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${backendNames.join(', ')}`);
  return value as BackendName;
}

export function parseList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  ];
}

/** The flags every command that starts an agent takes. */
export function addAgentOptions(command: Command): Command {
  return command
    .option('--cwd <dir>', 'working directory of the agent')
    .option('--model <model>', 'model, such as claude-sonnet-4-5')
    .option('--backend <name>', 'what runs the agent: claude (default) or codex', parseBackend)
    .option('--allowed-tools <tools>', 'comma-separated tools that run without asking', parseList)
    .option('--disallowed-tools <tools>', 'comma-separated tools removed entirely', parseList)
    .option('--permission-mode <mode>', permissionModes.join(' | '), parsePermissionMode)
    .option('--system-prompt <text>', "system prompt replacing Claude Code's preset")
    .option('--append-system-prompt <text>', "text appended to Claude Code's preset")
    .option('--max-turns <n>', 'maximum agent turns', parsePositiveInteger)
    .option('--max-budget-usd <usd>', 'cost cap in USD', parseNonNegativeNumber);
}

export interface AgentFlags {
  backend?: BackendName;
  cwd?: string;
  model?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  permissionMode?: PermissionMode;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  resume?: string;
}

/** The environment's `CLAUDE_*` config with the command's flags on top. */
export function configFromFlags(flags: AgentFlags, env: Record<string, string | undefined>): ClaudeConfig {
  const config = claudeConfigFromEnv(env);
  if (flags.cwd !== undefined) config.cwd = flags.cwd;
  if (flags.model !== undefined) config.model = flags.model;
  if (flags.allowedTools !== undefined) config.allowedTools = flags.allowedTools;
  if (flags.disallowedTools !== undefined) config.disallowedTools = flags.disallowedTools;
  if (flags.permissionMode !== undefined) config.permissionMode = flags.permissionMode;
  if (flags.systemPrompt !== undefined) config.systemPrompt = flags.systemPrompt;
  if (flags.appendSystemPrompt !== undefined) {
    if (typeof config.systemPrompt === 'string') {
      throw new InvalidArgumentError('--append-system-prompt cannot be combined with --system-prompt');
    }
    config.systemPrompt = { preset: 'claude_code', append: flags.appendSystemPrompt };
  }
  if (flags.maxTurns !== undefined) config.maxTurns = flags.maxTurns;
  if (flags.maxBudgetUsd !== undefined) config.maxBudgetUsd = flags.maxBudgetUsd;
  if (flags.resume !== undefined) config.resume = flags.resume;
  return config;
}
