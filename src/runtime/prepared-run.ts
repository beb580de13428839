import type { AgentBackend } from '../backends/agent-backend.js';
import { sessionSpecOf } from '../backends/session-spec.js';
import type { ClaudeConfig } from '../config/claude-config.js';
import { credentialSource } from '../config/credentials.js';
import { claudeConfigFromEnv } from '../config/env-config.js';
import { toDeferredSdkSessionStore } from '../store/session-store-adapter.js';
import type { SessionRecord, Store } from '../store/store.js';
import { startDemoModelFor } from '../testing/demo-model.js';
import { configurationRole, executionConfig, type LaunchOptions, launchOf } from './session-config.js';

/** An in-process execution's surroundings, started before its session exists. */
export interface PreparedRun {
  /** The worker's environment: the runtime's, and an offline session's demo model. */
  readonly env: Record<string, string>;
  /** Whether a session is the one this was prepared for (its provider and working directory). */
  fits(session: Pick<SessionRecord, 'provider' | 'cwd'>): boolean;
  /** Gives the early `claude` its transcript store once the store is open. */
  bindStore(store: Store): void;
  /** Ends the demo model and any `claude` that no execution took. */
  discard(): Promise<void>;
}

/** Nothing started: `runHere` starts what it needs itself. */
const notPrepared: PreparedRun = {
  env: {},
  fits: () => false,
  bindStore: () => {},
  discard: async () => {},
};

/** The values of an environment that are set. */
export function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value;
  return defined;
}

/**
 * Starts, for a new session about to be created with `launch`, what its in-process execution needs
 * (an offline session's demo model) and its `claude` (the backend's `prepare`), before the runtime
 * and its store are even open: `claude` boots while they open and the input is journaled. Cheap to
 * load: it imports neither the store nor the worker. `Runtime.runHere` takes it over, or discards it
 * when the session came out otherwise.
 */
export async function prepareRun(options: {
  backend: AgentBackend;
  /** The runtime's environment (credentials, CLAUDE_*). */
  env: Record<string, string | undefined>;
  /** The runtime's base config. @default the `CLAUDE_*` variables of `env` */
  base?: ClaudeConfig;
  launch: LaunchOptions;
}): Promise<PreparedRun> {
  // The session will most likely run under the default role as a fresh data dir has it; if not,
  // the early claude does not fit and is discarded.
  const launch = launchOf(options.base ?? claudeConfigFromEnv(options.env), {
    role: configurationRole,
    ...options.launch,
  });
  // Without credentials the session will be refused (by the runtime, with its own error): start nothing.
  if (launch.provider !== 'offline' && credentialSource(options.env) === null) return notPrepared;
  const demo = await startDemoModelFor({ provider: launch.provider, cwd: launch.cwd });
  const env = { ...definedEnv(options.env), ...demo?.env };
  let bind: (store: Store) => void = () => {};
  const store = new Promise<Store>((resolve) => {
    bind = resolve;
  });
  options.backend.prepare?.({
    spec: sessionSpecOf(executionConfig({ stored: launch.stored, resume: null, env })),
    sessionStore: toDeferredSdkSessionStore(store),
  });
  return {
    env,
    fits: (session) => session.provider === launch.provider && session.cwd === launch.cwd,
    bindStore: (opened) => bind(opened),
    discard: async () => {
      options.backend.discardPrepared?.();
      await demo?.close();
    },
  };
}
