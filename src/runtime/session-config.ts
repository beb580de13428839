import { resolve } from 'node:path';
import type { ClaudeConfig, PermissionMode } from '../config/claude-config.js';
import { type Provider, providerOf } from '../config/credentials.js';

/** What a new session's launch settings are made of: the runtime's base config and the caller's choices. */
export interface LaunchOptions {
  config?: Partial<ClaudeConfig>;
  model?: string;
  permissionMode?: PermissionMode;
  cwd?: string;
  /** Answer with the built-in demo model. */
  offline?: boolean;
}

export interface Launch {
  /** The whole config, `cwd` resolved. */
  config: ClaudeConfig;
  /** The agent's working directory, absolute. */
  cwd: string;
  /** The config as it is stored with the session: no credentials, no resume cursor. */
  stored: Record<string, unknown>;
  provider: Provider;
}

/** What never goes into the store: credentials and other environment travel to workers by env only. */
function storableConfig(config: ClaudeConfig): Record<string, unknown> {
  const { env: _env, resume: _resume, ...rest } = config;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** The launch settings of a new session: the one computation `createSession` and an early `run` share. */
export function launchOf(
  base: ClaudeConfig,
  env: Record<string, string | undefined>,
  options: LaunchOptions,
): Launch {
  const config: ClaudeConfig = {
    ...base,
    ...options.config,
    retry: { ...base.retry, ...options.config?.retry },
  };
  if (options.model) config.model = options.model;
  if (options.permissionMode) config.permissionMode = options.permissionMode;
  const cwd = resolve(options.cwd ?? config.cwd ?? process.cwd());
  config.cwd = cwd;
  const provider: Provider = options.offline ? 'offline' : providerOf({ ...env, ...config.env });
  return { config, cwd, stored: storableConfig(config), provider };
}

/** The config an execution gives its backend: the stored one, the resume cursor, and the environment. */
export function executionConfig(options: {
  stored: Record<string, unknown>;
  resume: string | null | undefined;
  env: Record<string, string>;
}): ClaudeConfig {
  // The stored form of a ClaudeConfig, read back: the worker reads it the same way.
  const config = options.stored as unknown as ClaudeConfig;
  return {
    ...config,
    ...(options.resume ? { resume: options.resume } : {}),
    env: { ...config.env, ...options.env },
  };
}
