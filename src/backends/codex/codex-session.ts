import { setTimeout as sleep } from 'node:timers/promises';
import type { Codex, Thread, ThreadEvent } from '@openai/codex-sdk';
import {
  type AgentSession,
  AgentStartError,
  type StartSessionOptions,
  type UserInput,
} from '../agent-backend.js';
import type { AgentErrorInfo, AgentEvent } from '../agent-event.js';
import { backoffDelay } from '../claude/backoff.js';
import { errorInfo } from '../claude/classify.js';
import { TurnTimer } from '../claude/turn-timer.js';
import { classifyCodexMessage, codexRetryOf } from './classify.js';
import { codexOptions, sandboxOf, threadOptions } from './codex-options.js';
import { CodexThreads, type ThreadStorage } from './codex-threads.js';
import { CodexTurnCost } from './codex-turn-cost.js';
import { CodexEventConverter, codexUsage } from './convert.js';

const continuePrompt =
  'Continue where you left off. Your previous response was cut short by a transient API error; do not repeat actions you already completed.';

/** Errors that no retry cures: stop at the first one, though codex would retry them for seconds. */
const credentialCodes = new Set<string>(['authentication', 'permission']);

type CodexModule = typeof import('@openai/codex-sdk');
let sdk: Promise<CodexModule> | undefined;
/** Imported on first use: loading agentd does not load the Codex SDK. */
const loadCodexSdk = () => {
  sdk ??= import('@openai/codex-sdk');
  return sdk;
};

/**
 * One Codex thread, fed one input per turn. Each turn is one `codex exec` process (the SDK's
 * `runStreamed`), started on the thread id, so a thread outlives any process and any worker: the
 * thread id is the resume cursor, stored like Claude's session id.
 */
export class CodexSession implements AgentSession {
  nativeSessionId: string | null;
  private codex: Codex | undefined;
  private thread: Thread | undefined;
  private turnAbort: AbortController | undefined;
  /** Why the current turn must end now, decided by agentd (interrupt, timeout, credentials). */
  private reason: AgentErrorInfo | undefined;
  private closed = false;
  private readonly converter = new CodexEventConverter();
  /** The turn's last agent message: its result. */
  private lastMessage: string | null = null;
  /** The thread's rollout, kept in the store (codex-threads.ts). */
  private readonly threads: CodexThreads;
  private costs: CodexTurnCost | undefined;

  constructor(
    private readonly options: StartSessionOptions,
    private readonly codexPath?: string,
  ) {
    this.nativeSessionId = options.spec.resume ?? null;
    const storage = options.sessionStore as ThreadStorage | undefined;
    this.threads = new CodexThreads({
      env: { ...process.env, ...options.spec.env },
      ...(storage ? { storage } : {}),
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    const inputs = this.options.inputs[Symbol.asyncIterator]();
    try {
      this.costs = CodexTurnCost.open(this.options.spec, { ...process.env, ...this.options.spec.env });
      const threadId = () => this.nativeSessionId;
      while (!this.closed) {
        const next = await inputs.next();
        if (next.done || this.closed) break;
        const turn = this.threads.saving(this.turn(next.value), threadId);
        yield* this.costs.pricing(turn, () => this.threads.model(threadId()));
      }
    } finally {
      void inputs.return?.()?.catch(() => undefined);
      // At exit, what a cut-short turn wrote; a failure here leaves it for the next turn's save.
      await this.threads.save(this.nativeSessionId).catch(() => undefined);
      await this.close();
    }
  }

  async interrupt(): Promise<void> {
    this.stopTurn(errorInfo('cancelled', 'the turn was interrupted'));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.turnAbort?.abort();
  }

  private stopTurn(reason: AgentErrorInfo): void {
    if (!this.turnAbort || this.reason) return;
    this.reason = reason;
    this.turnAbort.abort();
  }

  private async openThread(): Promise<Thread> {
    if (this.thread) return this.thread;
    const { Codex } = await loadCodexSdk();
    this.codex ??= new Codex(codexOptions(this.options.spec, this.codexPath));
    const options = threadOptions(this.options.spec);
    // A thread written on another node (or a wiped CODEX_HOME) comes back from the store first.
    if (this.nativeSessionId) this.costs?.startFrom(await this.threads.restore(this.nativeSessionId));
    this.thread = this.nativeSessionId
      ? this.codex.resumeThread(this.nativeSessionId, options)
      : this.codex.startThread(options);
    return this.thread;
  }

  /**
   * One input as a turn, with agentd's retries: a transient failure is retried with backoff, and
   * once codex took the prompt into its thread (the turn started) a retry continues the thread
   * rather than asking again, so that nothing the agent did is done twice.
   */
  private async *turn(input: UserInput): AsyncGenerator<AgentEvent> {
    const { spec } = this.options;
    let attempt = 0;
    let text = input.continueDeferred ? continuePrompt : input.text;
    let delivered = false;
    const startedAt = Date.now();
    this.reason = undefined;
    this.lastMessage = null;
    for (;;) {
      const controller = new AbortController();
      this.turnAbort = controller;
      const timer = new TurnTimer(spec.timeoutSeconds * 1000, () =>
        this.stopTurn(errorInfo('timeout', `the turn exceeded ${spec.timeoutSeconds}s`)),
      );
      let failure: AgentErrorInfo | null = null;
      let completed = false;
      let turnStarted = false;
      try {
        const thread = await this.openThread();
        timer.start();
        const { events } = await thread.runStreamed(text, { signal: controller.signal });
        for await (const event of events) {
          if (event.type === 'turn.started') {
            turnStarted = true;
            if (!delivered) {
              delivered = true;
              yield { type: 'input.delivered', inputId: input.id, raw: event };
            }
            continue;
          }
          if (event.type === 'turn.completed') {
            completed = true;
            yield this.turnCompleted(input, event, startedAt);
            continue;
          }
          if (event.type === 'turn.failed') {
            failure = classifyCodexMessage(event.error.message);
            continue;
          }
          if (event.type === 'error') {
            const notice = this.requestFailed(event.message, controller);
            if (notice) yield notice;
            continue;
          }
          for (const converted of this.convert(event)) {
            if (converted.type === 'agent.message') this.lastMessage = converted.text;
            yield converted;
          }
        }
      } catch (error) {
        if (!controller.signal.aborted && !turnStarted && isSpawnFailure(error)) {
          const message = error instanceof Error ? error.message : String(error);
          throw new AgentStartError(`codex could not be started: ${message}`, { cause: error });
        }
        failure ??= controller.signal.aborted
          ? errorInfo('cancelled', 'the turn was interrupted')
          : classifyCodexMessage(error instanceof Error ? error.message : String(error));
      } finally {
        timer.stop();
        this.turnAbort = undefined;
      }
      if (this.reason) failure = this.reason;
      if (completed && !this.reason) return;
      failure ??= errorInfo('network', 'codex exited before the turn finished');
      if (failure.transient && !this.reason && attempt < spec.retry.maxRetries && !this.closed) {
        attempt++;
        const delayMs = backoffDelay(spec.retry, attempt);
        yield {
          type: 'agent.retry',
          attempt,
          maxRetries: spec.retry.maxRetries,
          delayMs,
          by: 'agentd',
          error: failure,
        };
        await sleep(delayMs);
        // The thread has the prompt once its turn started: asking again would make the agent act twice.
        if (turnStarted) text = continuePrompt;
        continue;
      }
      yield { type: 'agent.error', error: failure };
      return;
    }
  }

  /** The thread's own events, with `session.started` once the thread id is known. */
  private convert(event: ThreadEvent): AgentEvent[] {
    if (event.type !== 'thread.started') return this.converter.convert(event);
    this.nativeSessionId = event.thread_id;
    const { spec } = this.options;
    return [
      {
        type: 'session.started',
        backend: 'codex',
        sessionId: event.thread_id,
        model: spec.model ?? '',
        tools: [],
        cwd: spec.cwd ?? process.cwd(),
        permissionMode: sandboxOf(spec),
        raw: event,
      },
    ];
  }

  /**
   * An `error` event: a request codex will retry (reported as a retry), or a credential failure,
   * which ends the turn at once: codex would retry a 401 for seconds, and no retry cures it.
   */
  private requestFailed(message: string, controller: AbortController): AgentEvent | null {
    const error = classifyCodexMessage(message);
    if (credentialCodes.has(error.code)) {
      if (!this.reason) {
        this.reason = error;
        controller.abort();
      }
      return null;
    }
    const retry = codexRetryOf(message);
    if (!retry) return { type: 'agent.native', backend: 'codex', subtype: 'error', raw: { message } };
    return { type: 'agent.retry', ...retry, delayMs: 0, by: 'codex', error, raw: { message } };
  }

  private turnCompleted(
    input: UserInput,
    event: Extract<ThreadEvent, { type: 'turn.completed' }>,
    startedAt: number,
  ): AgentEvent {
    const usage = codexUsage(event.usage);
    const model = this.options.spec.model ?? 'codex';
    return {
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: false,
      result: this.lastMessage,
      sessionId: this.nativeSessionId ?? '',
      usage,
      // The Responses API reports no price: CodexTurnCost prices the turn from its usage.
      costUsd: 0,
      numTurns: 1,
      durationMs: Date.now() - startedAt,
      durationApiMs: 0,
      modelUsage: { [model]: { ...usage, costUsd: 0 } },
      inputIds: [input.id],
      raw: event,
    };
  }
}

function isSpawnFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR';
}
