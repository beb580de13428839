import type { Options, Query, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeConfig } from '../../config/claude-config.js';
import { AsyncQueue } from '../../util/async-queue.js';
import {
  type AgentSession,
  AgentStartError,
  type HostTool,
  type RewindPoint,
  type StartSessionOptions,
} from '../agent-backend.js';
import type { AgentErrorInfo, AgentEvent } from '../agent-event.js';
import { errorInfo } from './classify.js';
import { claudeConfigOf } from './claude-config-of.js';
import { claudeSpawner } from './claude-process.js';
import type { NativeMessage } from './convert.js';
import { type EarlyStart, type EarlyStartTarget, startKey } from './early-start.js';
import { IdleFreezer } from './idle-freeze.js';
import { loadSdk } from './load-sdk.js';
import { PermissionBridge } from './permission-bridge.js';
import { buildSdkOptions } from './sdk-options.js';
import { type TurnHost, TurnRunner } from './turn-runner.js';
import type { TurnTimer } from './turn-timer.js';

/** How long an interrupted turn may take to report its result before the process is closed. */
const interruptGraceMs = 5000;

/** One `claude` conversation in streaming-input mode, fed one input per turn. */
export class ClaudeSession implements AgentSession, TurnHost {
  nativeSessionId: string | null;
  timer: TurnTimer | undefined;
  private query: Query | undefined;
  private prompts: AsyncQueue<SDKUserMessage> | undefined;
  private iterator: AsyncIterator<unknown> | undefined;
  /** Why the current turn must end now, decided by agentd (interrupt, timeout, credentials). */
  private reason: AgentErrorInfo | undefined;
  /** Why the current query's process could not be started, if it could not. */
  private spawnFailure: Error | undefined;
  private isClosed = false;
  /** A read of the query that is under way (between turns, or handed over to the turn). */
  private pendingNext: Promise<IteratorResult<unknown>> | undefined;
  /** Ends the wait of an interrupt under way when the session closes. */
  private onClose: () => void = () => {};
  private readonly permissions = new PermissionBridge(() => this.timer);
  private readonly turns = new TurnRunner(this);
  /** Stops `claude` while nothing is under way between turns, continues it before it is needed. */
  private readonly freezer: IdleFreezer;
  /** Background tasks `claude` last reported live (its `background_tasks_changed`). */
  private backgroundTasks = 0;

  /** A `claude` started before this session (ClaudeBackend.prepare), taken by its first query if the options match. */
  private early: EarlyStart | undefined;
  /** The next query resumes from here (a turn rolled back), once. */
  private rewindTo: RewindPoint | undefined;

  /** The Claude config of the session's spec. */
  readonly config: ClaudeConfig;

  constructor(
    private readonly options: StartSessionOptions,
    early?: EarlyStart,
  ) {
    this.config = claudeConfigOf(options.spec);
    this.nativeSessionId = this.config.resume ?? null;
    this.early = early;
    this.rewindTo = options.rewind;
    this.freezer = new IdleFreezer(options.freezeIdleAfterMs ?? 0);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Turns, one input at a time. Between turns `claude` keeps talking (a background task ends, a
   * turn it starts on its own): those messages are read as they come, not left for the next turn.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    const inputs = this.options.inputs[Symbol.asyncIterator]();
    try {
      let nextInput = inputs.next().then((result) => ({ kind: 'input' as const, result }));
      while (!this.isClosed) {
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
          for (const event of this.turns.convert(first.result.value as NativeMessage))
            yield this.noted(event);
          this.idle();
          continue;
        }
        // A read that lost the race stays in `pendingNext`: the turn takes it first.
        if (first.result.done) break;
        this.reason = undefined;
        this.freezer.thaw();
        try {
          for await (const event of this.turns.run(first.result.value)) yield this.noted(event);
        } finally {
          this.reason = undefined;
        }
        this.idle();
        nextInput = inputs.next().then((result) => ({ kind: 'input' as const, result }));
      }
    } finally {
      void inputs.return?.()?.catch(() => undefined);
      await this.close();
    }
  }

  private noted(event: AgentEvent): AgentEvent {
    if (event.type === 'session.started' && event.sessionId) this.nativeSessionId = event.sessionId;
    return event;
  }

  /** The query's next message: one already asked for between turns, or a new read. */
  private pullMessage(iterator: AsyncIterator<unknown>): Promise<IteratorResult<unknown>> {
    this.pendingNext ??= iterator.next().then((result) => {
      const message = result.value as { type?: unknown; subtype?: unknown; tasks?: unknown } | undefined;
      if (message?.type === 'system' && message.subtype === 'background_tasks_changed')
        this.backgroundTasks = Array.isArray(message.tasks) ? message.tasks.length : 0;
      return result;
    });
    return this.pendingNext;
  }

  /** Between turns: `claude` may be stopped once it has stayed quiet for a while. */
  private idle(): void {
    this.freezer.idle(() => !this.isClosed && this.query !== undefined && this.backgroundTasks === 0);
  }

  async takeMessage(iterator: AsyncIterator<unknown>): Promise<IteratorResult<unknown>> {
    const next = await this.pullMessage(iterator);
    this.pendingNext = undefined;
    return next;
  }

  push(prompt: SDKUserMessage): void {
    this.prompts?.push(prompt);
  }

  stopReason(): AgentErrorInfo | undefined {
    return this.reason;
  }

  assertStarted(): void {
    const failure = this.spawnFailure;
    if (failure)
      throw new AgentStartError(`claude could not be started: ${failure.message}`, { cause: failure });
  }

  async interrupt(): Promise<void> {
    await this.stopTurn(errorInfo('cancelled', 'the turn was interrupted'));
  }

  rewind(point: RewindPoint): void {
    this.rewindTo = point;
    this.closeQuery();
  }

  async close(): Promise<void> {
    this.isClosed = true;
    this.early?.close();
    this.early = undefined;
    this.timer?.stop();
    this.closeQuery();
    this.onClose();
  }

  async stopTurn(reason: AgentErrorInfo): Promise<void> {
    if (!this.query || this.reason) return;
    this.freezer.thaw();
    this.reason = reason;
    const query = this.query;
    // An interrupt sent as a turn ends may never be answered: give it a grace period, then close.
    // A session closed meanwhile has no turn left to interrupt.
    let grace: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      grace = setTimeout(() => {
        if (this.query === query) this.closeQuery();
        resolve();
      }, interruptGraceMs);
      this.onClose = resolve;
    });
    try {
      await Promise.race([query.interrupt().then(() => undefined), expired]);
    } catch {
      this.closeQuery();
    } finally {
      clearTimeout(grace);
      this.onClose = () => {};
    }
  }

  closeQuery(): void {
    // A stopped process would not act on the SIGTERM that closing it sends.
    this.freezer.attach(undefined);
    this.backgroundTasks = 0;
    this.pendingNext = undefined;
    this.prompts?.end();
    this.query?.close();
    this.query = undefined;
    this.prompts = undefined;
    this.iterator = undefined;
  }

  async openQuery(): Promise<AsyncIterator<unknown>> {
    if (this.iterator) return this.iterator;
    const callbacks: EarlyStartTarget['callbacks'] = {};
    if (this.options.canUseTool) callbacks.canUseTool = this.permissions.canUseTool(this.options.canUseTool);
    if (this.options.resumeDeferredTool)
      callbacks.hooks = { PreToolUse: [this.permissions.deferredToolHook(this.options.resumeDeferredTool)] };
    const target: EarlyStartTarget = {
      callbacks,
      onStderr: (chunk) => this.options.onStderr?.(chunk),
      onSpawnFailed: (error) => {
        this.spawnFailure = error;
      },
      onSpawned: (pid) => this.freezer.attach(pid),
    };
    const extra: Partial<Options> = { ...callbacks };
    if (this.options.sessionStore) {
      extra.sessionStore = this.options.sessionStore as Options['sessionStore'];
      extra.sessionStoreFlush = 'eager';
    }
    this.spawnFailure = undefined;
    extra.spawnClaudeCodeProcess = claudeSpawner(target);
    const rewind = this.rewindTo;
    this.rewindTo = undefined;
    // A rolled-back first turn leaves nothing to resume: a new native session starts.
    if (rewind && rewind.before === null) this.nativeSessionId = null;
    const { resume: _stored, ...fresh } = this.config;
    const config = this.nativeSessionId ? { ...this.config, resume: this.nativeSessionId } : fresh;
    if (rewind?.before && this.nativeSessionId) extra.resumeSessionAt = rewind.before;
    const options = buildSdkOptions(config, extra);
    if (this.options.hostTools?.length) await addHostTools(options, this.options.hostTools);
    this.prompts = new AsyncQueue<SDKUserMessage>();
    // Only the first query of a session can use a process started before it.
    const key = startKey(
      { config, sessionStore: this.options.sessionStore },
      { canUseTool: Boolean(callbacks.canUseTool), hooks: Boolean(callbacks.hooks) },
    );
    // A process started early has no host tools: it is not taken then.
    if (this.options.hostTools?.length || rewind) this.early?.close();
    const early = this.options.hostTools?.length || rewind ? undefined : this.early?.claim(key, target);
    this.early = undefined;
    const warm = early ? await early.catch(() => undefined) : undefined;
    if (warm) this.query = warm.query(this.prompts);
    else {
      const sdk = await loadSdk();
      this.query = sdk.query({ prompt: this.prompts, options });
    }
    this.iterator = this.query[Symbol.asyncIterator]();
    return this.iterator;
  }
}

/** agentd's own tools, as the in-process MCP server `agentd` beside the config's servers. */
async function addHostTools(options: Options, tools: HostTool[]): Promise<void> {
  const sdk = await loadSdk();
  const server = sdk.createSdkMcpServer({
    name: 'agentd',
    tools: tools.map((each) =>
      sdk.tool(each.name, each.description, each.input, async (input) => {
        const result = await each.run(input as Record<string, unknown>);
        return {
          content: [{ type: 'text', text: result.text }],
          ...(result.isError ? { isError: true } : {}),
        };
      }),
    ),
  });
  options.mcpServers = { ...options.mcpServers, agentd: server };
}
