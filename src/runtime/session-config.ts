import { resolve } from 'node:path';
import type { BackendName } from '../backends/agent-backend.js';
import type { ClaudeConfig, PermissionMode } from '../config/claude-config.js';
import { InvalidInputError } from '../errors/index.js';
import type { RoleMeta, RoleSurface } from '../store/org-storage.js';

/** What a new session's launch settings are made of: the runtime's base config and the caller's choices. */
export interface LaunchOptions {
  config?: Partial<ClaudeConfig>;
  model?: string;
  permissionMode?: PermissionMode;
  cwd?: string;
  /** Answer with the built-in demo model. */
  offline?: boolean;
  /** The backend that runs the session. @default the role's, else `claude` */
  backend?: BackendName;
  /** The role version the session runs under: its surface over the base config (null fields keep the base's). */
  role?: RoleSurface & Pick<RoleMeta, 'turnBudgetUsd'>;
  /** What the caller adds over the role (a seed run): system prompt text after the role's, tools allowed besides. */
  addendum?: LaunchAddendum;
}

export interface LaunchAddendum {
  systemPrompt?: string;
  allowedTools?: string[];
}

/**
 * The provider of every Codex session: the OpenAI Responses API that `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` of the worker's environment reach.
 */
export const codexProvider = 'openai';

/** The provider a role's sessions reach: a Codex role's always reach OpenAI's (`codexProvider`). */
export function providerOfRole(role: Pick<RoleSurface, 'provider' | 'backend'>): string {
  return role.backend === 'codex' ? codexProvider : role.provider;
}

/** What a fresh data dir's default role is: the runtime's own configuration, no skills. */
export const configurationRole: RoleSurface & Pick<RoleMeta, 'turnBudgetUsd'> = {
  provider: 'env',
  backend: 'claude',
  model: null,
  systemPrompt: null,
  tools: null,
  permissionMode: null,
  skills: [],
  userSkills: false,
  turnBudgetUsd: null,
};

export interface Launch {
  /** The whole config, `cwd` resolved. */
  config: ClaudeConfig;
  /** The agent's working directory, absolute. */
  cwd: string;
  /** The config as it is stored with the session: no credentials, no resume cursor. */
  stored: Record<string, unknown>;
  /** The provider profile's name: the role's, `env` (the process-wide variables), `openai` (a Codex session's), or `offline`. */
  provider: string;
  backend: BackendName;
}

/** What never goes into the store: credentials and other environment travel to workers by env only. */
function storableConfig(config: ClaudeConfig): Record<string, unknown> {
  const { env: _env, resume: _resume, ...rest } = config;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** The launch settings of a new session: the one computation `createSession` and an early `run` share. */
export function launchOf(base: ClaudeConfig, options: LaunchOptions): Launch {
  const config: ClaudeConfig = {
    ...base,
    ...options.config,
    retry: { ...base.retry, ...options.config?.retry },
  };
  const role = options.role;
  if (role) applyRole(config, role);
  if (options.addendum) applyAddendum(config, options.addendum);
  if (options.model) config.model = options.model;
  if (options.permissionMode) config.permissionMode = options.permissionMode;
  const cwd = resolve(options.cwd ?? config.cwd ?? process.cwd());
  config.cwd = cwd;
  const backend = options.backend ?? role?.backend ?? 'claude';
  const stored = storableConfig(config);
  if (backend === 'claude') {
    const provider = options.offline ? 'offline' : (role?.provider ?? 'env');
    return { config, cwd, stored, provider, backend };
  }
  // The offline demo model and the provider profiles speak Anthropic's API; Codex speaks OpenAI's.
  if (options.offline)
    throw new InvalidInputError('a codex session cannot run offline: the demo model answers only claude');
  stored.backend = backend;
  return { config, cwd, stored, provider: codexProvider, backend };
}

/** Appended after the role's prompt and tools: the role's surface stays, the addendum comes on top. */
function applyAddendum(config: ClaudeConfig, addendum: LaunchAddendum): void {
  if (addendum.systemPrompt) {
    const current = config.systemPrompt;
    config.systemPrompt =
      typeof current === 'string'
        ? `${current}\n\n${addendum.systemPrompt}`
        : {
            preset: 'claude_code',
            append: [current?.append, addendum.systemPrompt].filter(Boolean).join('\n\n'),
          };
  }
  if (addendum.allowedTools)
    config.allowedTools = [...new Set([...(config.allowedTools ?? []), ...addendum.allowedTools])];
}

/** A role's surface over the config: what it sets wins, what it leaves null keeps the base's. */
function applyRole(config: ClaudeConfig, role: RoleSurface & Pick<RoleMeta, 'turnBudgetUsd'>): void {
  if (role.model !== null) config.model = role.model;
  if (role.systemPrompt !== null) config.systemPrompt = { preset: 'claude_code', append: role.systemPrompt };
  if (role.tools !== null) config.allowedTools = role.tools;
  if (role.permissionMode !== null) config.permissionMode = role.permissionMode;
  // Exactly the role's skills: the worker materializes these and hides every other.
  config.skillDigests = role.skills;
  config.userSkills = role.userSkills;
  if (role.skills.length === 0 && !role.userSkills) config.skills = [];
}

/** The config an execution gives its backend: the stored one, the resume cursor, and the environment. */
export function executionConfig(options: {
  stored: Record<string, unknown>;
  resume: string | null | undefined;
  env: Record<string, string>;
}): ClaudeConfig {
  // The stored form of a ClaudeConfig, read back: the worker reads it the same way.
  const config = options.stored as unknown as ClaudeConfig;
  // The store's URL may carry the database password: it is agentd's, never the agent's.
  const { AGENTD_STORE_URL: _storeUrl, ...env } = { ...config.env, ...options.env };
  return {
    ...config,
    ...(options.resume ? { resume: options.resume } : {}),
    env,
  };
}
