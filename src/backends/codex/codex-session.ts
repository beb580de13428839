import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { AsyncQueue } from '../../util/async-queue.js';
import {
  type AgentSession,
  AgentStartError,
  type PermissionDecision,
  type StartSessionOptions,
  type UserInput,
} from '../agent-backend.js';
import type { AgentErrorInfo, AgentEvent, TokenUsage } from '../agent-event.js';
import { backoffDelay } from '../claude/backoff.js';
import { errorInfo } from '../claude/classify.js';
import { TurnTimer } from '../claude/turn-timer.js';
import { CodexAppServer } from './app-server.js';
import { allowedByTools, approvalOf, type CodexApproval, codexDecision, denialNote } from './approvals.js';
import { classifyCodexError, codexRetryOf } from './classify.js';
import { appServerArgs, codexEnv, codexPolicyOf, threadSettings } from './codex-options.js';
import { findCodexExecutable, withPathDirs } from './codex-path.js';
import { CodexThreads, type ThreadStorage } from './codex-threads.js';
import { CodexTurnCost } from './codex-turn-cost.js';
import { continueWaiting } from './continue-waiting.js';
import { addUsage, CodexEventConverter, codexUsage } from './convert.js';
import type { RequestId } from './json-rpc.js';
import {
  type AgentMessageDeltaNotification,
  clientMethods,
  type ErrorNotification,
  type ItemNotification,
  notificationMethods,
  otherServerMethods,
  type ServerRequestResolvedNotification,
  type ThreadItem,
  type ThreadOpenedResponse,
  type TokenUsageNotification,
  type TurnNotification,
  type TurnStartResponse,
  type WarningNotification,
} from './protocol.js';

const continuePrompt =
  'Continue where you left off. Your previous response was cut short by a transient API error; do not repeat actions you already completed.';

/** The first turn of a worker that took over from a dead one, after the waiting calls got their outcome. */
const continueWaitingPrompt =
  'Continue where you left off: your turn was cut short when agentd’s worker stopped. The outputs of the calls that waited for a person are now in the conversation; do not repeat actions you already completed.';

/** Errors that no retry cures: stop at the first one, though codex would retry them. */
const credentialCodes = new Set<string>(['authentication', 'permission']);

/** How long an interrupted turn may take to end before the server is killed. */
const interruptGraceMs = 5000;

type Queued =
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'request'; id: RequestId; method: string; params: unknown }
  | { kind: 'decided'; id: RequestId; approval: CodexApproval; decision: PermissionDecision }
  | { kind: 'exited' };

/** What one attempt at a turn tells the retry loop. */
interface AttemptState {
  delivered: boolean;
  turnStarted: boolean;
  completed: boolean;
  failure: AgentErrorInfo | null;
}

/** The running turn: its id once codex named it, what it used, what it answered. */
interface LiveTurn {
  id: string | null;
  controller: AbortController;
  timer: TurnTimer;
  usage: TokenUsage;
  lastMessage: string | null;
  codexRetries: number;
}

const noUsage = (): TokenUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
});

/**
 * One Codex thread on one `codex app-server` child for the session's life, fed one input per turn
 * (`turn/start`). The thread id is the resume cursor: a new process resumes it (`thread/resume`).
 * Codex's approval requests go to `canUseTool`, so they are persisted and answered like Claude's;
 * the decision is journaled (`agent.tool_permission`) before codex gets it.
 */
export class CodexSession implements AgentSession {
  nativeSessionId: string | null;
  private server: CodexAppServer | undefined;
  private queue: AsyncQueue<Queued> | undefined;
  private threadId: string | null = null;
  private turn: LiveTurn | undefined;
  /** Why the current turn must end now, decided by agentd (interrupt, timeout, credentials). */
  private reason: AgentErrorInfo | undefined;
  private closed = false;
  /** Settles when the session is closed: a wait for the next input ends with it. */
  private readonly closing: Promise<void>;
  private markClosed: () => void = () => undefined;
  private converter = new CodexEventConverter();
  /** Items seen this turn, by id (a file change's paths, for its approval). */
  private readonly items = new Map<string, ThreadItem>();
  /** Approvals being decided, by request id: aborted when codex stops waiting for one. */
  private readonly asking = new Map<RequestId, AbortController>();
  /** Approvals codex asked for this turn and has not been given a decision on, by request id. */
  private readonly open = new Map<RequestId, CodexApproval>();
  /** Server requests codex no longer waits for (the turn was interrupted). */
  private readonly resolved = new Set<RequestId>();
  private model: string | null = null;
  /** The thread's last running total (`thread/tokenUsage/updated`): a repeat of it adds nothing. */
  private lastTotalTokens: number | null = null;
  /** The thread's rollout, kept in the store (codex-threads.ts, 0145). */
  private readonly threads: CodexThreads;

  constructor(
    private readonly options: StartSessionOptions,
    private readonly codexPath?: string,
  ) {
    this.nativeSessionId = options.spec.resume ?? null;
    this.closing = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    const storage = options.sessionStore as ThreadStorage | undefined;
    this.threads = new CodexThreads({
      env: codexEnv(options.spec),
      ...(storage ? { storage } : {}),
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    const inputs = this.options.inputs[Symbol.asyncIterator]();
    try {
      const costs = CodexTurnCost.open(this.options.spec, codexEnv(this.options.spec));
      const threadId = () => this.nativeSessionId;
      while (!this.closed) {
        // Closed between turns (a stop), the session ends now, not when the inputs next look.
        const next = await Promise.race([inputs.next(), this.closing.then(() => null)]);
        if (!next || next.done || this.closed) break;
        // codex app-server writes the rollout in the background: what the last turn's save found
        // unwritten is saved before the next one starts (and at the end, once codex has exited).
        await this.threads.save(threadId()).catch(() => undefined);
        const turn = this.threads.saving(this.runTurn(next.value), threadId);
        yield* costs.pricing(
          turn,
          () => this.options.spec.model ?? this.model ?? this.threads.model(threadId()),
        );
      }
    } finally {
      void inputs.return?.()?.catch(() => undefined);
      await this.close();
      // codex has exited, its rollout complete: what the turns' saves missed goes to the store. A
      // failure here leaves it for the next worker's saves.
      await this.threads.save(this.nativeSessionId).catch(() => undefined);
    }
  }

  async interrupt(): Promise<void> {
    this.stopTurn(errorInfo('cancelled', 'the turn was interrupted'));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.markClosed();
    // Asked to stop with no answer yet, codex would record the waiting calls as aborted. Killed, it
    // leaves them open in the thread, as a dead worker does: the next worker continues them.
    const keepWaiting = this.open.size > 0;
    this.turn?.controller.abort();
    const server = this.server;
    this.server = undefined;
    if (keepWaiting) server?.kill();
    await server?.close();
  }

  /** Ends the running turn now: codex is asked to interrupt it, and killed if it does not. */
  private stopTurn(reason: AgentErrorInfo): void {
    const turn = this.turn;
    if (!turn || this.reason) return;
    this.reason = reason;
    turn.controller.abort();
    if (turn.id) this.interruptCodex(turn.id);
  }

  private interruptCodex(turnId: string): void {
    const server = this.server;
    if (!server || !this.threadId) return;
    server
      .request(clientMethods.turnInterrupt, { threadId: this.threadId, turnId })
      .catch(() => server.kill());
    const timer = setTimeout(() => {
      if (this.turn?.id === turnId) server.kill();
    }, interruptGraceMs);
    timer.unref();
  }

  /** The app-server, started (and initialized) on first use or after the last one died. */
  private async ensureServer(): Promise<{ server: CodexAppServer; queue: AsyncQueue<Queued> }> {
    if (this.server?.alive && this.queue) return { server: this.server, queue: this.queue };
    this.server?.kill();
    this.threadId = null;
    this.lastTotalTokens = null;
    const { spec } = this.options;
    const cwd = spec.cwd ?? process.cwd();
    const isDirectory = await stat(cwd).then(
      (found) => found.isDirectory(),
      () => false,
    );
    if (!isDirectory) throw new AgentStartError(`the working directory ${cwd} is not a directory`);
    let executable: { path: string; pathDirs: string[] };
    try {
      executable = this.codexPath ? { path: this.codexPath, pathDirs: [] } : findCodexExecutable();
    } catch (error) {
      throw new AgentStartError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    const env = withPathDirs(codexEnv(spec), executable.pathDirs);
    const queue = new AsyncQueue<Queued>();
    try {
      const server = await CodexAppServer.start({
        executable: executable.path,
        args: appServerArgs(spec, env),
        env,
        handlers: {
          notification: (method, params) => queue.push({ kind: 'notification', method, params }),
          request: (id, method, params) => queue.push({ kind: 'request', id, method, params }),
        },
        ...(this.options.onStderr ? { onStderr: this.options.onStderr } : {}),
      });
      void server.exited.then(() => queue.push({ kind: 'exited' }));
      this.server = server;
      this.queue = queue;
      return { server, queue };
    } catch (error) {
      if (isSpawnFailure(error)) {
        const message = error instanceof Error ? error.message : String(error);
        throw new AgentStartError(`codex could not be started: ${message}`, { cause: error });
      }
      throw error;
    }
  }

  /** The session's thread on this server: resumed by its id, or a new one. */
  private async *openThread(server: CodexAppServer): AsyncGenerator<AgentEvent, string> {
    if (this.threadId) return this.threadId;
    const settings = threadSettings(this.options.spec);
    let opened: ThreadOpenedResponse | undefined;
    if (this.nativeSessionId) {
      // A thread written on another node (or a wiped CODEX_HOME) comes back from the store first.
      await this.threads.restore(this.nativeSessionId);
      try {
        opened = await server.request<ThreadOpenedResponse>(clientMethods.threadResume, {
          threadId: this.nativeSessionId,
          ...settings,
          excludeTurns: true,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A thread whose first turn never began has no rollout: nothing is lost by a new one.
        if (!/no rollout found/i.test(message)) throw error;
        yield {
          type: 'agent.native',
          backend: 'codex',
          subtype: 'thread_not_found',
          raw: { threadId: this.nativeSessionId, message },
        };
      }
    }
    opened ??= await server.request<ThreadOpenedResponse>(clientMethods.threadStart, settings);
    this.threadId = opened.thread.id;
    this.model = opened.model;
    return opened.thread.id;
  }

  /**
   * One input as a turn, with agentd's retries: a transient failure is retried with backoff, and
   * once codex took the prompt into its thread (the turn started) a retry continues the thread
   * rather than asking again, so that nothing the agent did is done twice.
   */
  private async *runTurn(input: UserInput): AsyncGenerator<AgentEvent> {
    const { spec } = this.options;
    let attempt = 0;
    let text = input.continueDeferred ? continueWaitingPrompt : input.text;
    let waitingDone = !input.continueDeferred;
    const state: AttemptState = { delivered: false, turnStarted: false, completed: false, failure: null };
    const startedAt = Date.now();
    this.reason = undefined;
    for (;;) {
      const controller = new AbortController();
      const turn: LiveTurn = {
        id: null,
        controller,
        timer: new TurnTimer(spec.timeoutSeconds * 1000, () =>
          this.stopTurn(errorInfo('timeout', `the turn exceeded ${spec.timeoutSeconds}s`)),
        ),
        usage: noUsage(),
        lastMessage: null,
        codexRetries: 0,
      };
      this.turn = turn;
      state.turnStarted = false;
      state.completed = false;
      state.failure = null;
      try {
        const { server, queue } = await this.ensureServer();
        const threadId = yield* this.openThread(server);
        if (!waitingDone) {
          waitingDone = true;
          yield* continueWaiting({
            server,
            threadId,
            spec,
            waiting: this.options.waitingToolUses ?? [],
            converter: this.converter,
            decide: (toolUseId, signal) =>
              this.options.resumeDeferredTool?.(toolUseId, signal) ?? Promise.resolve(null),
            signal: controller.signal,
          });
        }
        if (controller.signal.aborted) throw new Error('the turn was interrupted');
        turn.timer.start();
        const started = await server.request<TurnStartResponse>(clientMethods.turnStart, {
          threadId,
          input: [{ type: 'text', text, text_elements: [] }],
        });
        turn.id = started.turn.id;
        if (this.reason) this.interruptCodex(turn.id);
        yield* this.events(input, queue, state, startedAt);
      } catch (error) {
        if (error instanceof AgentStartError) throw error;
        state.failure ??= controller.signal.aborted
          ? errorInfo('cancelled', 'the turn was interrupted')
          : failureOf(error);
      } finally {
        turn.timer.stop();
        controller.abort();
        this.turn = undefined;
      }
      // Approvals codex stopped waiting for (an interrupt, a timeout, codex gone) will never run;
      // a closing session keeps them open for the next worker, as a dead one would.
      if (!this.closed) yield* this.abandoned();
      this.endAsking();
      let failure = this.reason ?? state.failure;
      if (state.completed && !this.reason) return;
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
        if (state.turnStarted) text = continuePrompt;
        continue;
      }
      yield { type: 'agent.error', error: failure };
      return;
    }
  }

  /** The turn's notifications and requests, until it completes, fails or codex goes. */
  private async *events(
    input: UserInput,
    queue: AsyncQueue<Queued>,
    state: AttemptState,
    startedAt: number,
  ): AsyncGenerator<AgentEvent> {
    const turn = this.turn!;
    for (;;) {
      const next = await queue.next();
      if (next.done) return;
      const queued = next.value;
      if (queued.kind === 'exited') {
        state.failure ??= errorInfo('network', 'codex app-server exited before the turn finished');
        return;
      }
      if (queued.kind === 'request') {
        this.serverRequest(queued.id, queued.method, queued.params);
        continue;
      }
      if (queued.kind === 'decided') {
        yield* this.handOver(queued.id, queued.approval, queued.decision);
        continue;
      }
      const { method, params } = queued;
      const turnId = (params as { turnId?: unknown } | null)?.turnId;
      if (typeof turnId === 'string' && turnId !== turn.id) continue;
      switch (method) {
        case notificationMethods.turnStarted: {
          const { turn: started } = params as TurnNotification;
          if (started.id !== turn.id) break;
          state.turnStarted = true;
          yield this.sessionStarted(params);
          if (!state.delivered) {
            state.delivered = true;
            yield { type: 'input.delivered', inputId: input.id, raw: params };
          }
          break;
        }
        case notificationMethods.turnCompleted: {
          const { turn: ended } = params as TurnNotification;
          if (ended.id !== turn.id) break;
          if (ended.status === 'completed') {
            state.completed = true;
            yield this.turnCompleted(input, turn, params, startedAt);
          } else if (ended.status === 'failed' && ended.error) {
            state.failure ??= classifyCodexError(ended.error);
          } else state.failure ??= errorInfo('cancelled', 'the turn was interrupted');
          return;
        }
        case notificationMethods.itemStarted: {
          const { item } = params as ItemNotification;
          this.items.set(item.id, item);
          yield* this.converter.started(item, params);
          break;
        }
        case notificationMethods.itemCompleted: {
          const { item } = params as ItemNotification;
          this.items.delete(item.id);
          for (const event of this.converter.completed(item, params)) {
            if (event.type === 'agent.message') turn.lastMessage = event.text;
            yield event;
          }
          break;
        }
        case notificationMethods.agentMessageDelta:
          if (this.options.spec.includePartialMessages) {
            const { delta } = params as AgentMessageDeltaNotification;
            yield { type: 'agent.text_delta', text: delta, raw: params };
          }
          break;
        case notificationMethods.tokenUsage: {
          // `last` is one model request's usage, `total` the thread's running total: the turn's
          // own usage is the sum of its requests' (a notification that repeats the total adds none).
          const { tokenUsage } = params as TokenUsageNotification;
          if (tokenUsage.total.totalTokens !== this.lastTotalTokens)
            turn.usage = addUsage(turn.usage, codexUsage(tokenUsage.last));
          this.lastTotalTokens = tokenUsage.total.totalTokens;
          break;
        }
        case notificationMethods.planUpdated:
          yield { type: 'agent.native', backend: 'codex', subtype: 'plan', raw: params };
          break;
        case notificationMethods.warning:
          if ((params as WarningNotification).threadId === this.threadId)
            yield { type: 'agent.native', backend: 'codex', subtype: 'warning', raw: params };
          break;
        case notificationMethods.error: {
          const event = this.requestFailed(params as ErrorNotification, state);
          if (event) yield event;
          break;
        }
        case notificationMethods.serverRequestResolved: {
          const { requestId } = params as ServerRequestResolvedNotification;
          this.resolved.add(requestId);
          this.asking.get(requestId)?.abort();
          break;
        }
      }
    }
  }

  /** The thread, announced at each turn once codex began it (its rollout exists from then on). */
  private sessionStarted(raw: unknown): AgentEvent {
    const { spec } = this.options;
    this.nativeSessionId = this.threadId;
    return {
      type: 'session.started',
      backend: 'codex',
      sessionId: this.threadId ?? '',
      model: spec.model ?? this.model ?? '',
      tools: [],
      cwd: spec.cwd ?? process.cwd(),
      permissionMode: codexPolicyOf(spec).sandbox,
      raw: { ...(raw as object), approvalPolicy: codexPolicyOf(spec).approvalPolicy },
    };
  }

  /**
   * An `error` notification: a request codex retries (reported as a retry), a credential failure,
   * which ends the turn at once (no retry cures it), or the error the turn fails with.
   */
  private requestFailed(notice: ErrorNotification, state: AttemptState): AgentEvent | null {
    const error = classifyCodexError(notice.error);
    if (credentialCodes.has(error.code)) {
      this.stopTurn(error);
      return null;
    }
    if (!notice.willRetry) {
      state.failure ??= error;
      return null;
    }
    const turn = this.turn!;
    turn.codexRetries++;
    const retry = codexRetryOf(notice.error.message) ?? {
      attempt: turn.codexRetries,
      maxRetries: this.options.spec.retry.maxRetries,
    };
    return { type: 'agent.retry', ...retry, delayMs: 0, by: 'codex', error, raw: notice };
  }

  /** A request from codex: an approval is decided in the background; anything else is answered now. */
  private serverRequest(id: RequestId, method: string, params: unknown): void {
    const server = this.server;
    if (!server) return;
    const approval = approvalOf(method, params, this.items);
    if (approval) {
      this.decide(id, approval);
      return;
    }
    switch (method) {
      case otherServerMethods.userInput:
        // Nobody is asked a Codex question (yet): it gets no answers, and the model goes on.
        server.respond(id, { answers: {} });
        return;
      case otherServerMethods.elicitation:
        server.respond(id, { action: 'decline', content: null, _meta: null });
        return;
      default:
        server.respondError(id, -32601, `agentd does not answer ${method}`);
    }
  }

  /**
   * Decides an approval without holding up the turn's events: the session's allowed tools, else
   * `canUseTool` (a persisted interaction a person answers, or a rule), with the turn's clock
   * stopped meanwhile. The decision goes through the queue, so that it is journaled in order.
   */
  private decide(id: RequestId, approval: CodexApproval): void {
    const turn = this.turn;
    const controller = new AbortController();
    this.asking.set(id, controller);
    this.open.set(id, approval);
    turn?.controller.signal.addEventListener('abort', () => controller.abort(), { once: true });
    const queue = this.queue;
    const { spec, canUseTool } = this.options;
    const ask = async (): Promise<PermissionDecision> => {
      if (allowedByTools(spec.allowedTools, approval.toolName, approval.input))
        return { behavior: 'allow', updatedInput: approval.input };
      if (!canUseTool)
        return { behavior: 'deny', message: `nobody can be asked to approve ${approval.summary}` };
      turn?.timer.pause();
      return canUseTool({
        toolName: approval.toolName,
        input: approval.input,
        toolUseId: approval.toolUseId,
        suggestions: [],
        blockedPath: null,
        signal: controller.signal,
      });
    };
    ask()
      .catch(
        (error: unknown): PermissionDecision => ({
          behavior: 'deny',
          message: `agentd could not decide: ${error instanceof Error ? error.message : String(error)}`,
        }),
      )
      .then((decision) => {
        this.asking.delete(id);
        // The turn's clock runs again once nobody is being asked.
        if (this.asking.size === 0 && this.turn === turn) turn?.timer.start();
        queue?.push({ kind: 'decided', id, approval, decision });
      });
  }

  /**
   * Hands a decision to codex: journaled first (`agent.tool_permission`; the generator resumes
   * only once the worker has written it), then sent. A denial's reason reaches the model as a note
   * in the turn, since codex's answer carries none.
   */
  private async *handOver(
    id: RequestId,
    approval: CodexApproval,
    decision: PermissionDecision,
  ): AsyncGenerator<AgentEvent> {
    const server = this.server;
    const turn = this.turn;
    // Codex stopped waiting (the turn was interrupted, or is over): nothing is handed over.
    if (!server || !turn || turn.id !== approval.turnId || this.resolved.has(id)) return;
    if (turn.controller.signal.aborted) return;
    this.open.delete(id);
    yield { type: 'agent.tool_permission', toolUseId: approval.toolUseId, behavior: decision.behavior };
    if (decision.behavior === 'deny' && !decision.interrupt && this.threadId) {
      await server
        .request(clientMethods.turnSteer, {
          threadId: this.threadId,
          expectedTurnId: approval.turnId,
          input: [{ type: 'text', text: denialNote(approval.summary, decision.message), text_elements: [] }],
        })
        .catch(() => undefined);
    }
    server.respond(id, { decision: codexDecision(decision) });
  }

  /** Results for the approvals the ended turn never handed over: codex told the model they were aborted. */
  private *abandoned(): Generator<AgentEvent> {
    for (const approval of this.open.values()) {
      yield {
        type: 'agent.tool_result',
        toolUseId: approval.toolUseId,
        content: 'not run: the turn ended while a person was asked',
        isError: true,
        raw: { abandoned: true },
      };
    }
    this.open.clear();
  }

  /** The turn is over: nobody is asked for it any longer. */
  private endAsking(): void {
    for (const controller of this.asking.values()) controller.abort();
    this.asking.clear();
    this.open.clear();
    this.resolved.clear();
    this.items.clear();
  }

  private turnCompleted(input: UserInput, turn: LiveTurn, raw: unknown, startedAt: number): AgentEvent {
    const model = this.options.spec.model ?? this.model ?? 'codex';
    return {
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: false,
      result: turn.lastMessage,
      sessionId: this.nativeSessionId ?? '',
      usage: turn.usage,
      // The Responses API reports no price: CodexTurnCost prices the turn from its usage.
      costUsd: 0,
      numTurns: 1,
      durationMs: Date.now() - startedAt,
      durationApiMs: 0,
      modelUsage: { [model]: { ...turn.usage, costUsd: 0 } },
      inputIds: [input.id],
      raw,
    };
  }
}

/** A failed request or a server gone, classified; a server that died is worth a retry. */
function failureOf(error: unknown): AgentErrorInfo {
  const message = error instanceof Error ? error.message : String(error);
  if (/codex app-server exited|connection closed|EPIPE/i.test(message))
    return errorInfo('network', message || 'codex app-server exited');
  return classifyCodexError({ message, codexErrorInfo: null, additionalDetails: null });
}

function isSpawnFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR';
}
