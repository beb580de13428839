import type {
  AgentBackend,
  AgentSession,
  PrepareSessionOptions,
  StartSessionOptions,
} from '../agent-backend.js';
import { claudeConfigOf } from './claude-config-of.js';
import { ClaudeSession } from './claude-session.js';
import { EarlyStart } from './early-start.js';

/** The Claude backend: Claude Agent SDK `query()` in streaming-input mode. */
export class ClaudeBackend implements AgentBackend {
  readonly name = 'claude';
  private early: EarlyStart | undefined;

  startSession(options: StartSessionOptions): AgentSession {
    const early = this.early;
    this.early = undefined;
    return new ClaudeSession(options, early);
  }

  /** Starts `claude` now (the SDK's `startup()`), for the next session started with the same config. */
  prepare(options: PrepareSessionOptions): void {
    const start = { config: claudeConfigOf(options.spec), sessionStore: options.sessionStore };
    // Prepared twice with the same config (early by the CLI, then by the execution): keep the first.
    if (this.early?.key === EarlyStart.keyOf(start)) return;
    this.early?.close();
    this.early = new EarlyStart(start, options.freezeIdleAfterMs ?? 0);
  }

  /** Settles once the prepared `claude` was started or could not be; at once when none is prepared. */
  spawned(): Promise<void> {
    return this.early?.spawned ?? Promise.resolve();
  }

  discardPrepared(): void {
    this.early?.close();
    this.early = undefined;
  }
}
