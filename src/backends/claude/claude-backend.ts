import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  CanUseTool,
  HookCallback,
  HookCallbackMatcher,
  Options,
  Query,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeConfig } from '../../config/claude-config.js';
import { AsyncQueue } from '../../util/async-queue.js';
import type {
  AgentBackend,
  AgentSession,
  PermissionHandler,
  StartSessionOptions,
  UserInput,
} from '../agent-backend.js';
import type { AgentErrorInfo, AgentEvent } from '../agent-event.js';
import { backoffDelay } from './backoff.js';
import { classifyError, classifyResult, errorInfo } from './classify.js';
import { convertMessage, type NativeMessage } from './convert.js';
import { buildSdkOptions } from './sdk-options.js';

type Sdk = typeof import('@anthropic-ai/claude-agent-sdk');

let sdkPromise: Promise<Sdk> | undefined;
/** The SDK is imported on first use, so that loading agentd does not load it. */
export function loadSdk(): Promise<Sdk> {
  sdkPromise ??= import('@anthropic-ai/claude-agent-sdk');
  return sdkPromise;
}

const continuePrompt =
  'Continue where you left off. Your previous response was cut short by a transient API error; do not repeat actions you already completed.';

/** How long an interrupted turn may take to report its result before the process is closed. */
const interruptGraceMs = 5000;

/** Event types that show the model acted on the turn's prompt. */
const modelEventTypes = new Set<AgentEvent['type']>([
  'agent.message',
  'agent.thinking',
  'agent.tool_call',
  'agent.tool_result',
  'agent.text_delta',
]);

/** Errors that no retry cures: stop at the first one. */
const credentialCodes = new Set<string>(['authentication', 'permission']);

function userMessage(text: string, uuid: string): SDKUserMessage {
  return {
    type: 'user',
    message: { role: 'user', content: text },
    parent_tool_use_id: null,
    uuid: uuid as SDKUserMessage['uuid'],
  };
}

/** A turn's wall clock that stops while a person is being asked. */
class TurnTimer {
  private handle: NodeJS.Timeout | undefined;
  private remainingMs: number;
  private startedAt = 0;

  constructor(
    private readonly limitMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remainingMs = limitMs;
  }

  start(): void {
    if (this.limitMs <= 0 || this.handle) return;
    this.startedAt = Date.now();
    this.handle = setTimeout(this.onExpire, Math.max(0, this.remainingMs));
  }

  pause(): void {
    if (!this.handle) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.remainingMs -= Date.now() - this.startedAt;
  }

  stop(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
  }
}

class ClaudeSession implements AgentSession {
  nativeSessionId: string | null;
  private query: Query | undefined;
  private prompts: AsyncQueue<SDKUserMessage> | undefined;
  private iterator: AsyncIterator<unknown> | undefined;
  /** Why the current turn must end now, decided by agentd (interrupt, timeout, credentials). */
  private stopReason: AgentErrorInfo | undefined;
  private pendingPermissions = 0;
  private timer: TurnTimer | undefined;
  private closed = false;
  private readonly delivered = new Set<string>();
  /** A read of the query that is under way (between turns, or handed over to the turn). */
  private pendingNext: Promise<IteratorResult<unknown>> | undefined;
  /** The uuids of prompts agentd made to retry a turn, to the input they stand for. */
  private readonly retryPromptIds = new Map<string, string>();

  constructor(private readonly options: StartSessionOptions) {
    this.nativeSessionId = options.config.resume ?? null;
  }

  private get config(): ClaudeConfig {
    return this.options.config;
  }

  /**
   * Turns, one input at a time. Between turns `claude` keeps talking (a background task ends, a
   * turn it starts on its own): those messages are read as they come, not left for the next turn.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    const inputs = this.options.inputs[Symbol.asyncIterator]();
    try {
      let nextInput = inputs.next().then((result) => ({ kind: 'input' as const, result }));
      while (!this.closed) {
        // Between turns a failed read only means claude has gone; a turn that takes the read over sees the error.
        const pending = this.iterator
          ? [
              this.pullMessage(this.iterator).then(
                (result) => ({ kind: 'message' as const, result }),
                () => ({ kind: 'message' as const, result: { done: true as const, value: undefined } }),
              ),
            ]
          : [];
        const first = await Promise.race([nextInput, ...pending]);
        if (first.kind === 'message') {
          this.pendingNext = undefined;
          if (first.result.done) {
            this.closeQuery();
            continue;
          }
          for (const event of convertMessage(first.result.value as NativeMessage)) {
            if (event.type === 'session.started' && event.sessionId) this.nativeSessionId = event.sessionId;
            yield event;
          }
          continue;
        }
        // A read that lost the race stays in `pendingNext`: the turn takes it first.
        if (first.result.done) break;
        yield* this.runTurn(first.result.value);
        nextInput = inputs.next().then((result) => ({ kind: 'input' as const, result }));
      }
    } finally {
      void inputs.return?.()?.catch(() => undefined);
      await this.close();
    }
  }

  /** The query's next message: one already asked for between turns, or a new read. */
  private pullMessage(iterator: AsyncIterator<unknown>): Promise<IteratorResult<unknown>> {
    this.pendingNext ??= iterator.next();
    return this.pendingNext;
  }

  async interrupt(): Promise<void> {
    await this.stopTurn(errorInfo('cancelled', 'the turn was interrupted'));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.stop();
    this.closeQuery();
  }

  private async stopTurn(reason: AgentErrorInfo): Promise<void> {
    if (!this.query || this.stopReason) return;
    this.stopReason = reason;
    const query = this.query;
    // An interrupt sent as a turn ends may never be answered: give it a grace period, then close.
    let grace: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      grace = setTimeout(() => {
        if (this.query === query) this.closeQuery();
        resolve();
      }, interruptGraceMs);
    });
    try {
      await Promise.race([query.interrupt().then(() => undefined), expired]);
    } catch {
      this.closeQuery();
    } finally {
      clearTimeout(grace);
    }
  }

  /** Set from callbacks (interrupt, timer, credentials) while a turn streams. */
  private currentStopReason(): AgentErrorInfo | undefined {
    return this.stopReason;
  }

  private closeQuery(): void {
    this.pendingNext = undefined;
    this.prompts?.end();
    this.query?.close();
    this.query = undefined;
    this.prompts = undefined;
    this.iterator = undefined;
  }

  private permissionHandler(handler: PermissionHandler): CanUseTool {
    return async (toolName, input, context) => {
      this.pendingPermissions++;
      this.timer?.pause();
      try {
        return (await handler({
          toolName,
          input,
          toolUseId: (context as { toolUseID?: string }).toolUseID ?? null,
          suggestions: context.suggestions ?? [],
          blockedPath: context.blockedPath ?? null,
          signal: context.signal,
        })) as Awaited<ReturnType<CanUseTool>>;
      } finally {
        this.pendingPermissions--;
        if (this.pendingPermissions === 0) this.timer?.start();
      }
    };
  }

  private deferredToolHook(
    resolve: NonNullable<StartSessionOptions['resumeDeferredTool']>,
  ): HookCallbackMatcher {
    const hook: HookCallback = async (input, _toolUseId, { signal }) => {
      if (input.hook_event_name !== 'PreToolUse') return {};
      this.pendingPermissions++;
      this.timer?.pause();
      try {
        const decision = await resolve(input.tool_use_id, signal);
        if (decision === null) return {};
        return {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: decision.behavior,
            ...(decision.behavior === 'allow'
              ? decision.updatedInput
                ? { updatedInput: decision.updatedInput }
                : {}
              : { permissionDecisionReason: decision.message }),
          },
        };
      } finally {
        this.pendingPermissions--;
        if (this.pendingPermissions === 0) this.timer?.start();
      }
    };
    // A person may take days to answer: the hook waits as long as the permission prompt would.
    return { hooks: [hook], timeout: 365 * 24 * 3600 };
  }

  private async openQuery(): Promise<AsyncIterator<unknown>> {
    if (this.iterator) return this.iterator;
    const sdk = await loadSdk();
    const extra: Partial<Options> = {};
    if (this.options.canUseTool) extra.canUseTool = this.permissionHandler(this.options.canUseTool);
    if (this.options.resumeDeferredTool)
      extra.hooks = { PreToolUse: [this.deferredToolHook(this.options.resumeDeferredTool)] };
    if (this.options.sessionStore) {
      extra.sessionStore = this.options.sessionStore as Options['sessionStore'];
      extra.sessionStoreFlush = 'eager';
    }
    if (this.options.onStderr) extra.stderr = this.options.onStderr;
    const options = buildSdkOptions(
      this.nativeSessionId ? { ...this.config, resume: this.nativeSessionId } : this.config,
      extra,
    );
    this.prompts = new AsyncQueue<SDKUserMessage>();
    this.query = sdk.query({ prompt: this.prompts, options });
    this.iterator = this.query[Symbol.asyncIterator]();
    return this.iterator;
  }

  /**
   * A retry prompt is agentd's, not the user's: its echo and its result report the input it
   * retries, so that clients only ever see the ids they sent.
   */
  private inputIdsOfRetries(event: AgentEvent): AgentEvent {
    if (event.type === 'input.delivered') {
      const inputId = this.retryPromptIds.get(event.inputId);
      return inputId === undefined ? event : { ...event, inputId };
    }
    if (event.type === 'agent.turn.completed' && event.inputIds.some((id) => this.retryPromptIds.has(id))) {
      const inputIds = [...new Set(event.inputIds.map((id) => this.retryPromptIds.get(id) ?? id))];
      return { ...event, inputIds };
    }
    return event;
  }

  /** One user input, with retries, until its result or a final error. */
  private async *runTurn(input: UserInput): AsyncGenerator<AgentEvent> {
    const retry = this.config.retry;
    let attempt = 0;
    let prompt = userMessage(input.text, input.id);
    /** The prompt is in claude's transcript: the model acted on it, or claude finished a turn with it. */
    let promptInSession = false;
    this.stopReason = undefined;
    this.timer = new TurnTimer(this.config.timeoutSeconds * 1000, () => {
      void this.stopTurn(
        errorInfo('timeout', `the turn exceeded ${this.config.timeoutSeconds}s (CLAUDE_TIMEOUT)`),
      );
    });
    try {
      for (;;) {
        let failure: AgentErrorInfo | null = null;
        let sawResult = false;
        try {
          const iterator = await this.openQuery();
          // A resumed session continues its deferred tool uses on its own; a prompt would be a new turn.
          if (!input.continueDeferred || attempt > 0) this.prompts!.push(prompt);
          this.timer.start();
          for (;;) {
            const next = await this.pullMessage(iterator);
            this.pendingNext = undefined;
            if (next.done) break;
            const message = next.value as NativeMessage;
            for (const converted of convertMessage(message)) {
              const event = this.inputIdsOfRetries(converted);
              if (event.type === 'session.started' && event.sessionId) this.nativeSessionId = event.sessionId;
              if (event.type === 'input.delivered') {
                if (this.delivered.has(event.inputId)) continue;
                this.delivered.add(event.inputId);
              }
              if (modelEventTypes.has(event.type)) promptInSession = true;
              if (event.type === 'agent.retry' && credentialCodes.has(event.error.code)) {
                // claude retries a 401 for minutes; one is enough to know the credentials are wrong.
                void this.stopTurn(event.error);
              }
              yield event;
            }
            if (message.type === 'result') {
              sawResult = true;
              promptInSession = true;
              failure = classifyResult(message as Parameters<typeof classifyResult>[0]);
              break;
            }
          }
          if (!sawResult) failure = errorInfo('network', 'claude exited before the turn finished');
        } catch (error) {
          failure = classifyError(error);
        }
        this.timer.stop();
        const stopReason = this.currentStopReason();
        if (stopReason) failure = stopReason;
        // A cancelled turn leaves claude usable; a timeout or a credential failure does not.
        if (!sawResult || (stopReason && stopReason.code !== 'cancelled')) this.closeQuery();
        if (failure === null) return;
        if (failure.transient && !stopReason && attempt < retry.maxRetries && !this.closed) {
          attempt++;
          const delayMs = backoffDelay(retry, attempt);
          yield {
            type: 'agent.retry',
            attempt,
            maxRetries: retry.maxRetries,
            delayMs,
            by: 'agentd',
            error: failure,
          };
          await sleep(delayMs);
          // Once the prompt is in the native session, sending it again would show the model the
          // question twice, and could make it act twice: continue the session instead. Only a
          // prompt that claude never took in (it exited first) is sent again.
          const retryId = randomUUID();
          this.retryPromptIds.set(retryId, input.id);
          prompt = userMessage(promptInSession ? continuePrompt : input.text, retryId);
          continue;
        }
        yield { type: 'agent.error', error: failure };
        return;
      }
    } finally {
      this.timer.stop();
      this.stopReason = undefined;
    }
  }
}

/** The Claude backend: Claude Agent SDK `query()` in streaming-input mode. */
export class ClaudeBackend implements AgentBackend {
  readonly name = 'claude';

  startSession(options: StartSessionOptions): AgentSession {
    return new ClaudeSession(options);
  }
}
