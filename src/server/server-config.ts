import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { bridgesConfigSchema } from '../bridges/bridges-config.js';
import { type ClaudeConfig, effortLevels, permissionModes, settingSources } from '../config/claude-config.js';
import { claudeConfigFromEnv } from '../config/env-config.js';
import { ConfigError } from '../errors/index.js';

type Env = Record<string, string | undefined>;

/** Claude settings a config file may set. Credentials (`env`) stay out: they travel by environment only. */
const claudeSettingsSchema = z
  .strictObject({
    model: z.string().min(1),
    fallbackModel: z.string().min(1),
    tools: z.array(z.string()),
    allowedTools: z.array(z.string()),
    disallowedTools: z.array(z.string()),
    systemPrompt: z.union([
      z.string(),
      z.strictObject({ preset: z.literal('claude_code'), append: z.string().optional() }),
    ]),
    maxTurns: z.number().int().min(1),
    permissionMode: z.enum(permissionModes),
    maxBudgetUsd: z.number().min(0),
    effort: z.enum(effortLevels),
    additionalDirectories: z.array(z.string()),
    mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())),
    strictMcpConfig: z.boolean(),
    cwd: z.string().min(1),
    settingSources: z.array(z.enum(settingSources)),
    skills: z.union([z.array(z.string()), z.literal('all')]),
    includePartialMessages: z.boolean(),
    timeoutSeconds: z.number().min(0),
    retry: z
      .strictObject({
        maxRetries: z.number().int().min(0),
        initialDelayMs: z.number().min(0),
        maxDelayMs: z.number().min(0),
      })
      .partial(),
  })
  .partial();

/** Spare workers a server keeps when its config names no `spareWorkers`. */
export const defaultSpareWorkers = 1;

/** The `--config FILE` of `agentd serve`. Unknown keys are errors, so a typo is not silently ignored. */
export const serverConfigSchema = z.strictObject({
  /** Bearer tokens accepted besides those in AGENTD_TOKENS. */
  tokens: z.array(z.string().min(1)).optional(),
  maxLiveWorkers: z.number().int().min(1).optional(),
  /** Warm workers kept ready for new sessions of each role that sets no `warmPool` of its own. */
  warmPool: z.number().int().min(0).max(8).optional(),
  /** Spare workers (agentd and the SDK loaded, no `claude`) kept ready for any session's next worker. */
  spareWorkers: z.number().int().min(0).max(8).optional(),
  bodyLimitBytes: z.number().int().min(1024).optional(),
  corsOrigins: z.array(z.string().min(1)).optional(),
  /** Seconds between heartbeat comments on event streams. */
  heartbeatSeconds: z.number().positive().optional(),
  claude: claudeSettingsSchema.optional(),
  /** The A2A agent card (name, description, skills …), read by the A2A routes. */
  agentCard: z.record(z.string(), z.unknown()).optional(),
  /** Chat bridges to start (docs/chat.md); their secrets come from the environment variables named. */
  bridges: bridgesConfigSchema.optional(),
});

export type ServerConfig = z.output<typeof serverConfigSchema>;

export function parseServerConfig(value: unknown, source = 'config'): ServerConfig {
  const parsed = serverConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(`${source} is invalid: ${issues.join('; ')}`, { issues });
}

export function loadServerConfig(path: string): ServerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseServerConfig(value, `config file ${path}`);
}

/** Tokens from the config file and AGENTD_TOKENS (comma-separated), without duplicates. */
export function configuredTokens(config: ServerConfig, env: Env, extra: readonly string[] = []): string[] {
  const fromEnv = (env.AGENTD_TOKENS ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  return [...new Set([...extra, ...(config.tokens ?? []), ...fromEnv])];
}

/**
 * The base config of new sessions: the `CLAUDE_*` environment, with the config file's `claude`
 * settings over it (the file is named on the command line, so it is the more explicit of the two).
 */
export function baseClaudeConfig(config: ServerConfig, env: Env): ClaudeConfig {
  const fromEnv = claudeConfigFromEnv(env);
  const { retry, ...settings } = config.claude ?? {};
  return { ...fromEnv, ...settings, retry: { ...fromEnv.retry, ...retry } } as ClaudeConfig;
}
