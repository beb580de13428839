import { ConfigError } from '../errors/index.js';
import {
  type ClaudeConfig,
  defaultClaudeConfig,
  type EffortLevel,
  effortLevels,
  type PermissionMode,
  permissionModes,
  type SettingSource,
  settingSources,
} from './claude-config.js';

type Env = Record<string, string | undefined>;

/** One row of the README's table: the variable, what it sets, and its default. */
export interface EnvVariable {
  name: string;
  default: string;
  description: string;
}

export const claudeEnvVariables: EnvVariable[] = [
  {
    name: 'CLAUDE_MODEL',
    default: '(SDK default)',
    description: 'Model, such as `claude-sonnet-4-5` or an OpenRouter id',
  },
  {
    name: 'CLAUDE_FALLBACK_MODEL',
    default: '(none)',
    description: 'Model used when the primary one is unavailable',
  },
  {
    name: 'CLAUDE_TOOLS',
    default: "(Claude Code's tools)",
    description: 'Comma-separated tools Claude can see',
  },
  {
    name: 'CLAUDE_ALLOWED_TOOLS',
    default: '(none)',
    description: 'Comma-separated tools that run without asking',
  },
  {
    name: 'CLAUDE_ALLOWED_MCP_TOOLS',
    default: '(none)',
    description: 'MCP tool patterns that run without asking',
  },
  {
    name: 'CLAUDE_DISALLOWED_TOOLS',
    default: '(none)',
    description: 'Comma-separated tools removed entirely',
  },
  {
    name: 'CLAUDE_SYSTEM_PROMPT',
    default: "(Claude Code's preset)",
    description: 'System prompt replacing the preset',
  },
  {
    name: 'CLAUDE_APPEND_SYSTEM_PROMPT',
    default: '(none)',
    description: "Text appended to Claude Code's preset",
  },
  {
    name: 'CLAUDE_MAX_TURNS',
    default: '(unlimited)',
    description: 'Maximum agent turns per prompt (positive integer)',
  },
  { name: 'CLAUDE_PERMISSION_MODE', default: 'default', description: permissionModes.join(', ') },
  { name: 'CLAUDE_MAX_BUDGET_USD', default: '(unlimited)', description: 'Cost cap per prompt in USD' },
  { name: 'CLAUDE_EFFORT', default: '(SDK default)', description: effortLevels.join(', ') },
  {
    name: 'CLAUDE_ADD_DIRS',
    default: '(none)',
    description: 'Comma-separated extra directories Claude may use',
  },
  {
    name: 'CLAUDE_STRICT_MCP_CONFIG',
    default: 'false',
    description: 'Only use CLAUDE_MCP_SERVERS, ignore .mcp.json',
  },
  { name: 'CLAUDE_MCP_SERVERS', default: '(none)', description: 'JSON object of MCP server configs' },
  { name: 'CLAUDE_SETTING_SOURCES', default: '(none)', description: 'Comma-separated: user, project, local' },
  { name: 'CLAUDE_SKILLS', default: 'false', description: 'Enable skill discovery (needs setting sources)' },
  { name: 'CLAUDE_SKILLS_FILTER', default: '(all)', description: 'Comma-separated skill names to enable' },
  { name: 'CLAUDE_STREAMING', default: 'false', description: 'Emit text deltas as they stream' },
  { name: 'CLAUDE_TIMEOUT', default: '600', description: 'Seconds one turn may run (0 = no limit)' },
  { name: 'CLAUDE_MAX_RETRIES', default: '3', description: 'Retries of transient errors (0 disables)' },
  {
    name: 'CLAUDE_RETRY_BACKOFF',
    default: '2.0',
    description: 'First backoff delay in seconds (doubles each retry)',
  },
  { name: 'CLAUDE_RETRY_MAX_DELAY', default: '30', description: 'Largest backoff delay in seconds' },
  { name: 'CLAUDE_CWD', default: '(current directory)', description: 'Working directory of the agent' },
];

const booleans: Record<string, boolean> = {
  true: true,
  '1': true,
  yes: true,
  false: false,
  '0': false,
  no: false,
};

function list(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

function number(name: string, value: string, options: { integer?: boolean; min?: number }): number {
  const parsed = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(parsed)) {
    throw new ConfigError(`${name} must be a number, got ${JSON.stringify(value)}`, { variable: name });
  }
  if (options.integer && !Number.isInteger(parsed)) {
    throw new ConfigError(`${name} must be a whole number, got ${JSON.stringify(value)}`, { variable: name });
  }
  if (options.min !== undefined && parsed < options.min) {
    throw new ConfigError(`${name} must be at least ${options.min}, got ${parsed}`, { variable: name });
  }
  return parsed;
}

function boolean(name: string, value: string): boolean {
  const parsed = booleans[value.trim().toLowerCase()];
  if (parsed === undefined) {
    throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(value)}`, { variable: name });
  }
  return parsed;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value.trim())) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`, {
      variable: name,
    });
  }
  return value.trim() as T;
}

function jsonObject(name: string, value: string): Record<string, Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new ConfigError(`${name} is not valid JSON: ${(error as Error).message}`, { variable: name });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`${name} must be a JSON object of server name to config`, { variable: name });
  }
  return parsed as Record<string, Record<string, unknown>>;
}

/**
 * Reads the `CLAUDE_*` variables (kagent-claude's golden image names) over `base`.
 * A bad value throws `ConfigError` naming the variable; nothing is guessed.
 */
export function claudeConfigFromEnv(env: Env, base: ClaudeConfig = defaultClaudeConfig()): ClaudeConfig {
  const config: ClaudeConfig = { ...base, retry: { ...base.retry } };
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const set = <T>(name: string, parse: (value: string) => T, apply: (parsed: T) => void) => {
    const value = read(name);
    if (value !== undefined) apply(parse(value));
  };

  set(
    'CLAUDE_MODEL',
    (value) => value.trim(),
    (value) => (config.model = value),
  );
  set(
    'CLAUDE_FALLBACK_MODEL',
    (value) => value.trim(),
    (value) => (config.fallbackModel = value),
  );
  set('CLAUDE_TOOLS', list, (value) => (config.tools = value));
  set('CLAUDE_ALLOWED_TOOLS', list, (value) => (config.allowedTools = value));
  set(
    'CLAUDE_ALLOWED_MCP_TOOLS',
    list,
    (value) => (config.allowedTools = [...(config.allowedTools ?? []), ...value]),
  );
  set('CLAUDE_DISALLOWED_TOOLS', list, (value) => (config.disallowedTools = value));
  set(
    'CLAUDE_SYSTEM_PROMPT',
    (value) => value,
    (value) => (config.systemPrompt = value),
  );
  set(
    'CLAUDE_APPEND_SYSTEM_PROMPT',
    (value) => value,
    (value) => {
      if (typeof config.systemPrompt === 'string') {
        throw new ConfigError('CLAUDE_APPEND_SYSTEM_PROMPT cannot be combined with CLAUDE_SYSTEM_PROMPT', {
          variable: 'CLAUDE_APPEND_SYSTEM_PROMPT',
        });
      }
      config.systemPrompt = { preset: 'claude_code', append: value };
    },
  );
  set(
    'CLAUDE_MAX_TURNS',
    (value) => number('CLAUDE_MAX_TURNS', value, { integer: true, min: 1 }),
    (value) => (config.maxTurns = value),
  );
  set(
    'CLAUDE_PERMISSION_MODE',
    (value) => oneOf<PermissionMode>('CLAUDE_PERMISSION_MODE', value, permissionModes),
    (value) => (config.permissionMode = value),
  );
  set(
    'CLAUDE_MAX_BUDGET_USD',
    (value) => number('CLAUDE_MAX_BUDGET_USD', value, { min: 0 }),
    (value) => (config.maxBudgetUsd = value),
  );
  set(
    'CLAUDE_EFFORT',
    (value) => oneOf<EffortLevel>('CLAUDE_EFFORT', value, effortLevels),
    (value) => (config.effort = value),
  );
  set('CLAUDE_ADD_DIRS', list, (value) => (config.additionalDirectories = value));
  set(
    'CLAUDE_STRICT_MCP_CONFIG',
    (value) => boolean('CLAUDE_STRICT_MCP_CONFIG', value),
    (value) => (config.strictMcpConfig = value),
  );
  set(
    'CLAUDE_MCP_SERVERS',
    (value) => jsonObject('CLAUDE_MCP_SERVERS', value),
    (value) => (config.mcpServers = value),
  );
  set(
    'CLAUDE_SETTING_SOURCES',
    (value) =>
      list(value).map((entry) => oneOf<SettingSource>('CLAUDE_SETTING_SOURCES', entry, settingSources)),
    (value) => (config.settingSources = value),
  );
  const skillsOn =
    read('CLAUDE_SKILLS') === undefined ? false : boolean('CLAUDE_SKILLS', read('CLAUDE_SKILLS')!);
  if (skillsOn) {
    const filter = read('CLAUDE_SKILLS_FILTER');
    config.skills = filter === undefined ? 'all' : list(filter);
  }
  set(
    'CLAUDE_STREAMING',
    (value) => boolean('CLAUDE_STREAMING', value),
    (value) => (config.includePartialMessages = value),
  );
  set(
    'CLAUDE_TIMEOUT',
    (value) => number('CLAUDE_TIMEOUT', value, { min: 0 }),
    (value) => (config.timeoutSeconds = value),
  );
  set(
    'CLAUDE_MAX_RETRIES',
    (value) => number('CLAUDE_MAX_RETRIES', value, { integer: true, min: 0 }),
    (value) => (config.retry.maxRetries = value),
  );
  set(
    'CLAUDE_RETRY_BACKOFF',
    (value) => number('CLAUDE_RETRY_BACKOFF', value, { min: 0 }),
    (value) => (config.retry.initialDelayMs = Math.round(value * 1000)),
  );
  set(
    'CLAUDE_RETRY_MAX_DELAY',
    (value) => number('CLAUDE_RETRY_MAX_DELAY', value, { min: 0 }),
    (value) => (config.retry.maxDelayMs = Math.round(value * 1000)),
  );
  set(
    'CLAUDE_CWD',
    (value) => value,
    (value) => (config.cwd = value),
  );
  return config;
}
