import type { CanUseTool, HookCallbackMatcher, Options, WarmQuery } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeConfig } from '../../config/claude-config.js';
import { claudeSpawner } from './claude-process.js';
import { IdleFreezer } from './idle-freeze.js';
import { loadSdk } from './load-sdk.js';
import { buildSdkOptions } from './sdk-options.js';

/** What an early start is started with: the Claude config of the spec it was prepared for. */
export interface ClaudeStart {
  config: ClaudeConfig;
  sessionStore?: unknown;
}

/** The session that takes an early-started `claude`: it answers its callbacks from then on. */
export interface EarlyStartTarget {
  /** The session's own permission callback and hooks. */
  callbacks: Pick<Options, 'canUseTool' | 'hooks'>;
  onStderr(chunk: string): void;
  onSpawnFailed(error: Error): void;
  onSpawned(pid: number): void;
}

/** Which callbacks a query has: their presence changes how `claude` is started, their code does not. */
export interface CallbackPresence {
  canUseTool: boolean;
  hooks: boolean;
}

/**
 * The identity of a start: the config (credentials included; the key never leaves this process),
 * whether it mirrors transcripts, and which callbacks it has. Equal keys start equal `claude`s.
 */
export function startKey(options: ClaudeStart, callbacks: CallbackPresence): string {
  return JSON.stringify({ config: options.config, sessionStore: Boolean(options.sessionStore), callbacks });
}

/**
 * The SDK options of an early start: the config's, with callbacks that answer for the session that
 * will take the process (`target()`), the same shape a session gives its own query.
 */
function earlyOptions(
  options: ClaudeStart,
  handlers: {
    target: () => EarlyStartTarget | undefined;
    onSpawnFailed: (error: Error) => void;
    onSpawned: (pid: number) => void;
  },
): Options {
  const canUseTool: CanUseTool = (...args) => {
    const handler = handlers.target()?.callbacks.canUseTool;
    if (!handler) return Promise.resolve({ behavior: 'deny', message: 'no session has taken this process' });
    return handler(...args);
  };
  const preToolUse: HookCallbackMatcher = {
    hooks: [
      (...args) => {
        const hook = handlers.target()?.callbacks.hooks?.PreToolUse?.[0]?.hooks[0];
        return hook ? hook(...args) : Promise.resolve({});
      },
    ],
    // As long as the session's own hook may wait (a person may take days to answer).
    timeout: 365 * 24 * 3600,
  };
  return buildSdkOptions(options.config, {
    canUseTool,
    hooks: { PreToolUse: [preToolUse] },
    ...(options.sessionStore
      ? { sessionStore: options.sessionStore as Options['sessionStore'], sessionStoreFlush: 'eager' }
      : {}),
    spawnClaudeCodeProcess: claudeSpawner({
      onStderr: (chunk) => handlers.target()?.onStderr(chunk),
      onSpawnFailed: (error) => {
        handlers.onSpawnFailed(error);
        handlers.target()?.onSpawnFailed(error);
      },
      onSpawned: (pid) => {
        handlers.onSpawned(pid);
        handlers.target()?.onSpawned(pid);
      },
    }),
  });
}

/**
 * A `claude` started (the SDK's `startup()`) before the session that will use it, so that its
 * ~0.5 s of booting overlaps the caller's journal writes and lease instead of following them. Its
 * callbacks are placeholders until a session with the same options takes it: a permission request
 * or hook cannot come before the first prompt, and that prompt comes from the session.
 */
export class EarlyStart {
  readonly key: string;
  private readonly warm: Promise<WarmQuery>;
  private target: EarlyStartTarget | undefined;
  private spawnFailure: Error | undefined;
  private pid: number | undefined;
  private claimed = false;
  /**
   * Settles once the process was started, or could not be (a failed start fails the session that
   * claims it): a caller with CPU-heavy work of its own starts it after, not during, the SDK's spawn.
   */
  readonly spawned: Promise<void>;
  /** A booted process waiting to be taken (a warm pool entry's) uses no CPU meanwhile. */
  private readonly freezer: IdleFreezer;

  /** The key of the process `new EarlyStart(options)` would start. */
  static keyOf(options: ClaudeStart): string {
    return startKey(options, { canUseTool: true, hooks: true });
  }

  constructor(options: ClaudeStart, freezeIdleAfterMs = 0) {
    this.freezer = new IdleFreezer(freezeIdleAfterMs);
    let markSpawned = () => {};
    this.spawned = new Promise((resolve) => {
      markSpawned = resolve;
    });
    const sdkOptions = earlyOptions(options, {
      target: () => this.target,
      onSpawnFailed: (error) => {
        this.spawnFailure = error;
        markSpawned();
      },
      onSpawned: (pid) => {
        this.pid = pid;
        this.freezer.attach(pid);
        markSpawned();
      },
    });
    this.key = EarlyStart.keyOf(options);
    this.warm = loadSdk().then((sdk) => sdk.startup({ options: sdkOptions }));
    // A start that fails is seen by the session that claims it; unclaimed, it only must not crash.
    this.warm.then(
      () => {
        markSpawned();
        if (!this.claimed) this.freezer.idle(() => !this.claimed);
      },
      () => markSpawned(),
    );
  }

  /**
   * The started process for a session whose options have this key, or undefined (another config:
   * the caller starts its own, and this one is closed).
   */
  claim(key: string, target: EarlyStartTarget): Promise<WarmQuery> | undefined {
    if (this.claimed || key !== this.key) {
      this.close();
      return undefined;
    }
    this.claimed = true;
    this.freezer.thaw();
    this.target = target;
    if (this.spawnFailure) target.onSpawnFailed(this.spawnFailure);
    if (this.pid !== undefined) target.onSpawned(this.pid);
    return this.warm;
  }

  /** Ends the process if no session took it. */
  close(): void {
    if (this.claimed) return;
    this.claimed = true;
    this.freezer.thaw();
    void this.warm.then((warm) => warm.close()).catch(() => undefined);
  }
}
