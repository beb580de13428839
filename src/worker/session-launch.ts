import type { ClaudeConfig } from '../config/claude-config.js';
import { providerEnvFor } from '../config/provider-env.js';
import type { DataPaths } from '../journal/data-dir.js';
import type { ProviderStorage } from '../store/org-storage.js';
import type { SessionRecord } from '../store/store.js';

/**
 * What an execution adds to its session's stored config when it starts: the environment for the
 * session's provider (its secret included: never stored) and the config the worker makes itself.
 */
export interface SessionLaunch {
  env: Record<string, string>;
  config: Partial<ClaudeConfig>;
}

export interface SessionEnvOptions {
  store: Pick<ProviderStorage, 'getProvider'>;
  session: Pick<SessionRecord, 'provider'>;
  /** The environment that starts workers (the runtime's, or the worker process's own). */
  env: Record<string, string | undefined>;
}

/**
 * The environment an execution of `session` gives `claude` over its own: the provider profile's
 * endpoint, secret and models, or nothing for `env`, the legacy names and `offline`. Throws
 * `credentials_missing` when the profile's secret cannot be read.
 */
export function sessionEnv(options: SessionEnvOptions): Promise<Record<string, string>> {
  return providerEnvFor({ store: options.store, provider: options.session.provider, env: options.env });
}

/** The stored config with what the launch adds: its config over it, its env over the config's. */
export function launchConfig(config: ClaudeConfig, launch: SessionLaunch | undefined): ClaudeConfig {
  if (!launch) return config;
  return { ...config, ...launch.config, env: { ...config.env, ...launch.env } };
}

export interface SessionLaunchOptions extends SessionEnvOptions {
  session: Pick<SessionRecord, 'provider' | 'config'>;
  /** The data dir: its skill store, and where skills are materialized for `claude`. */
  paths: Pick<DataPaths, 'root' | 'skills'>;
}

/**
 * Everything an execution of `session` adds to its stored config when it starts. Throws an
 * `AgentdError` (`credentials_missing`) when the session cannot start: the worker fails its
 * execution with that code.
 */
export async function sessionLaunch(options: SessionLaunchOptions): Promise<SessionLaunch> {
  return { env: await sessionEnv(options), config: {} };
}
