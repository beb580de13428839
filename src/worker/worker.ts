import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentBackend, AgentSession, UserInput } from '../backends/agent-backend.js';
import type { AgentEvent } from '../backends/agent-event.js';
import type { ClaudeConfig } from '../config/claude-config.js';
import { LeaseLostError } from '../errors/index.js';
import { type JournalEvent, journalEntry } from '../journal/journal-event.js';
import { processStartTime } from '../journal/process-identity.js';
import { readJournal } from '../journal/read-journal.js';
import { toSdkSessionStore } from '../store/session-store-adapter.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../telemetry/tracing.js';
import { markInterruptedToolUses, projectKeyOf, transcriptHasToolUse } from './deferred-tools.js';
import { InteractionBridge } from './interactions.js';
import { TurnTracer } from './turn-tracer.js';

export interface WorkerOptions {
  store: Store;
  backend: AgentBackend;
  sessionId: string;
  executionId: string;
  /** @default 15000 */
  leaseTtlMs?: number;
  /** How often the worker looks for inputs, answers and requests. @default 50 */
  pollMs?: number;
  /** Stop after this long with no turn, interaction or background task; 0 = never. @default 600000 */
  idleTimeoutMs?: number;
  /** Environment for the backend (credentials); never stored. */
  env?: Record<string, string>;
  /** OpenTelemetry tracing; null or absent when off. */
  tracing?: Tracing | null;
  log?: (line: string) => void;
}

/** Why the worker ended, as the process exit code reports it. */
export const workerExitCodes = { stopped: 0, failed: 1, leaseHeld: 2, leaseLost: 3 } as const;

/**
 * One execution: owns the session's lease, feeds accepted inputs to the backend in order, journals
 * every event fenced by its lease epoch, and persists permission requests until they are answered.
 */
export class Worker {
  private epoch = 0;
  private session: AgentSession | undefined;
  private stopping: string | undefined;
  private turnActive = false;
  private lastActivity = Date.now();
  private lastControlCursor = 0;
  private leaseLost = false;
  private nativeSessionId: string | null = null;
  /** Background tasks claude reported running (a background shell, a monitor): they keep the worker up. */
  private backgroundTasks = 0;
  private cwd: string | null = null;
  private readonly pollMs: number;
  private readonly leaseTtlMs: number;
  private readonly idleTimeoutMs: number;
  private readonly interactions: InteractionBridge;
  private readonly wakers: Array<() => void> = [];
  private tracer: TurnTracer | undefined;
  /** How far the journal was read for the trace context of inputs. */
  private traceScanCursor = 0;
  private readonly traceparents = new Map<string, string>();

  constructor(private readonly options: WorkerOptions) {
    this.pollMs = options.pollMs ?? 50;
    this.leaseTtlMs = options.leaseTtlMs ?? 15_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 600_000;
    this.interactions = new InteractionBridge({
      store: options.store,
      sessionId: options.sessionId,
      executionId: options.executionId,
      epoch: () => this.epoch,
      pollMs: this.pollMs * 2,
      nap: (ms) => this.nap(ms),
      // An interrupt journaled before the answer wins over it: the canceled turn must not go on.
      interrupted: async () => {
        if (!(await this.takeInterruptRequest())) return false;
        void this.session?.interrupt();
        return true;
      },
      beforeCreate: (toolUseId) => this.awaitMirroredToolUse(toolUseId),
    });
  }

  /** Wakes the worker from its poll at once: the runtime signals it when it journals an input or an answer. */
  wake(): void {
    const wakers = this.wakers.splice(0);
    for (const waker of wakers) waker();
  }

  /** Sleeps for `ms`, or until `wake()`. */
  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const wakers = this.wakers;
      function done() {
        clearTimeout(timer);
        const index = wakers.indexOf(done);
        if (index >= 0) wakers.splice(index, 1);
        resolve();
      }
      wakers.push(done);
    });
  }

  private log(line: string) {
    this.options.log?.(`${new Date().toISOString()} ${line}`);
  }

  async run(): Promise<number> {
    const { store, sessionId, executionId } = this.options;
    const sessionRecord = await store.getSession(sessionId);
    if (!sessionRecord) throw new Error(`session ${sessionId} not found`);
    const pid = process.pid;
    const startTime = processStartTime(pid);
    const lease = await store.acquireLease({
      sessionId,
      owner: executionId,
      ttlMs: this.leaseTtlMs,
      pid,
      processStartTime: startTime,
      now: Date.now(),
    });
    if (!lease) {
      this.log('lease held by another worker; exiting');
      await store.updateExecution(executionId, {
        state: 'failed',
        error: { code: 'lease_held', message: 'another worker holds this session' },
        endedAt: Date.now(),
        now: Date.now(),
      });
      return workerExitCodes.leaseHeld;
    }
    this.epoch = lease.epoch;
    this.lastControlCursor = await store.lastCursor(sessionId);
    await store.updateExecution(
      executionId,
      { state: 'idle', epoch: this.epoch, pid, processStartTime: startTime, now: Date.now() },
      { epoch: this.epoch },
    );
    await this.journal([{ type: 'execution.started', executionId, epoch: this.epoch, pid }]);
    this.log(`lease epoch ${this.epoch}; session ${sessionId}`);

    const config = sessionRecord.config as unknown as ClaudeConfig;
    this.cwd = sessionRecord.cwd;
    const resume = await this.resumableSession(sessionRecord.nativeSessionId, sessionRecord.cwd);
    this.nativeSessionId = resume ?? null;
    if (this.options.tracing) {
      this.tracer = new TurnTracer(this.options.tracing, { sessionId, model: sessionRecord.model });
    }
    const deferred = resume ? await this.markInterruptedToolUses(resume, sessionRecord.cwd) : [];
    const session = this.options.backend.startSession({
      config: { ...config, ...(resume ? { resume } : {}), env: { ...config.env, ...this.options.env } },
      inputs: this.inputs(deferred.length > 0),
      canUseTool: (request) => this.interactions.request(request),
      resumeDeferredTool: (toolUseId, signal) => this.interactions.resumeDeferred(toolUseId, signal),
      sessionStore: toSdkSessionStore(store),
      onStderr: (line) => this.log(`claude: ${line.trimEnd()}`),
    });
    this.session = session;
    const control = this.controlLoop();
    let outcome: number = workerExitCodes.stopped;
    try {
      for await (const event of session) await this.record(event);
    } catch (error) {
      if (error instanceof LeaseLostError || this.leaseLost) outcome = workerExitCodes.leaseLost;
      else {
        outcome = workerExitCodes.failed;
        this.log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        await this.fail(error);
      }
    } finally {
      this.stopping ??= 'session ended';
      this.tracer?.endTurn();
      await control;
    }
    if (outcome === workerExitCodes.stopped && !this.leaseLost) await this.finish();
    return this.leaseLost ? workerExitCodes.leaseLost : outcome;
  }

  /**
   * The native session to resume. A worker killed before the SDK mirrored anything leaves a
   * session id with no transcript in the store; `claude --resume` would fail on it for good
   * ("No conversation found"), so such a session starts afresh instead.
   */
  private async resumableSession(nativeSessionId: string | null, cwd: string): Promise<string | undefined> {
    if (!nativeSessionId) return undefined;
    const key = { projectKey: projectKeyOf(cwd), sessionId: nativeSessionId };
    const entries = await this.options.store.loadTranscript(key);
    if (entries && entries.length > 0) return nativeSessionId;
    this.log(`claude session ${nativeSessionId} has no transcript in the store; starting a new one`);
    return undefined;
  }

  /**
   * An input whose turn ended without claude echoing it (the turn was given up, or the worker
   * stopped first) was perhaps never seen: `uncertain`, never left `dispatching`.
   */
  private async markUndelivered(): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    const stuck = (await store.listInputs(sessionId, { states: ['dispatching'] })).filter(
      (input) => input.executionId === executionId,
    );
    if (stuck.length === 0) return;
    await store.updateInputStates({
      sessionId,
      inputIds: stuck.map((input) => input.id),
      from: ['dispatching'],
      to: 'uncertain',
      epoch: this.epoch,
      now: Date.now(),
    });
    this.log(`inputs not echoed by claude, now uncertain: ${stuck.map((input) => input.id).join(', ')}`);
  }

  /**
   * An interaction must never outlive the transcript entry it answers: if the worker dies, resume
   * finds the tool use in the store and continues it. The SDK mirrors the entry within moments.
   */
  private async awaitMirroredToolUse(toolUseId: string): Promise<void> {
    if (!this.nativeSessionId || !this.cwd) return;
    const key = { projectKey: projectKeyOf(this.cwd), sessionId: this.nativeSessionId };
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if (await transcriptHasToolUse(this.options.store, key, toolUseId)) return;
      await sleep(this.pollMs);
    }
    this.log(`tool use ${toolUseId} not mirrored to the store yet; asking anyway`);
  }

  /**
   * Tool uses that a dead worker left waiting for a person are marked deferred in the transcript,
   * so that the resumed session asks for them again and gets the persisted answer.
   */
  private async markInterruptedToolUses(nativeSessionId: string, cwd: string): Promise<string[]> {
    const { store, sessionId, executionId } = this.options;
    const interactions = (await store.listInteractions({ sessionId })).filter(
      (interaction) => interaction.executionId !== executionId && interaction.toolUseId !== null,
    );
    if (interactions.length === 0) return [];
    const marked = await markInterruptedToolUses({
      store,
      key: { projectKey: projectKeyOf(cwd), sessionId: nativeSessionId },
      interactions,
    });
    if (marked.length > 0) this.log(`continuing deferred tool uses: ${marked.join(', ')}`);
    return marked;
  }

  /** Accepted inputs, oldest first, each marked `dispatching` before the backend sees it. */
  private async *inputs(continueDeferred = false): AsyncGenerator<UserInput> {
    const { store, sessionId, executionId } = this.options;
    if (continueDeferred) {
      this.turnActive = true;
      await store.updateExecution(executionId, { state: 'running', now: Date.now() }, { epoch: this.epoch });
      const id = randomUUID();
      this.tracer?.startTurn({ inputId: id });
      yield { id, text: '', continueDeferred: true };
    }
    while (!this.stopping) {
      const [next] = await store.listInputs(sessionId, { states: ['accepted'] });
      if (next) {
        const [dispatched] = await store.updateInputStates({
          sessionId,
          inputIds: [next.id],
          from: ['accepted'],
          to: 'dispatching',
          executionId,
          epoch: this.epoch,
          now: Date.now(),
        });
        if (!dispatched) continue;
        this.turnActive = true;
        await store.updateExecution(
          executionId,
          { state: 'running', now: Date.now() },
          { epoch: this.epoch },
        );
        if (this.tracer) {
          const traceparent = await this.traceparentOf(dispatched.id);
          this.tracer.startTurn({ inputId: dispatched.id, ...(traceparent ? { traceparent } : {}) });
        }
        yield { id: dispatched.id, text: dispatched.text };
        continue;
      }
      if (
        this.idleTimeoutMs > 0 &&
        this.interactions.pending === 0 &&
        this.backgroundTasks === 0 &&
        Date.now() - this.lastActivity > this.idleTimeoutMs
      ) {
        // Mark first, then look once more: a sender either sees `stopping` or we see its input.
        await store.updateExecution(
          executionId,
          { state: 'stopping', now: Date.now() },
          { epoch: this.epoch },
        );
        if ((await store.listInputs(sessionId, { states: ['accepted'] })).length > 0) {
          await store.updateExecution(executionId, { state: 'idle', now: Date.now() }, { epoch: this.epoch });
          this.lastActivity = Date.now();
          continue;
        }
        this.stopping = 'idle timeout';
        return;
      }
      await this.nap(this.pollMs);
    }
  }

  /** The trace context the input was sent with, read from its `input.accepted` journal event. */
  private async traceparentOf(inputId: string): Promise<string | undefined> {
    for (;;) {
      const page = await readJournal(this.options.store, this.options.sessionId, {
        after: this.traceScanCursor,
        limit: 1000,
      });
      for (const event of page) {
        this.traceScanCursor = event.cursor;
        if (event.type === 'input.accepted' && event.data.traceparent) {
          this.traceparents.set(event.data.inputId, event.data.traceparent);
        }
      }
      if (page.length < 1000) break;
    }
    const traceparent = this.traceparents.get(inputId);
    this.traceparents.delete(inputId);
    return traceparent;
  }

  private async record(event: AgentEvent): Promise<void> {
    const { store, sessionId } = this.options;
    this.lastActivity = Date.now();
    this.tracer?.onEvent(event);
    if (event.type === 'claude.message' && event.subtype === 'background_tasks_changed') {
      const tasks = (event.raw as { tasks?: unknown[] } | undefined)?.tasks;
      this.backgroundTasks = Array.isArray(tasks) ? tasks.length : 0;
    }
    if (event.type === 'input.delivered') {
      const changed = await store.updateInputStates({
        sessionId,
        inputIds: [event.inputId],
        from: ['accepted', 'dispatching'],
        to: 'delivered',
        epoch: this.epoch,
        now: Date.now(),
      });
      if (changed.length === 0) return;
    }
    if (event.type === 'session.started' && event.sessionId) {
      this.nativeSessionId = event.sessionId;
      await store.updateSession(sessionId, { nativeSessionId: event.sessionId, now: Date.now() });
    }
    await this.journal([event]);
    // agent.error is final: the backend retries before it gives up.
    if (event.type === 'agent.error') await this.markUndelivered();
    if (event.type === 'agent.turn.completed' || event.type === 'agent.error') await this.endTurn();
  }

  private async endTurn(): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    this.turnActive = false;
    this.lastActivity = Date.now();
    const queued = await store.listInputs(sessionId, { states: ['accepted'] });
    if (queued.length > 0) return;
    await store.updateExecution(executionId, { state: 'idle', now: Date.now() }, { epoch: this.epoch });
    await this.journal([{ type: 'work.settled', executionId }]);
  }

  private async journal(events: JournalEvent[]): Promise<void> {
    await this.options.store.appendEvents(
      this.options.sessionId,
      events.map((event) => journalEntry(event, this.options.executionId)),
      { epoch: this.epoch, now: Date.now() },
    );
  }

  /** Renews the lease and reads requests (stop, interrupt) until the worker stops. */
  /**
   * Reads the journal for an interrupt requested since the last look (`control.interrupt`), and
   * whether one applies to the turn now running.
   */
  private async takeInterruptRequest(): Promise<boolean> {
    const { store, sessionId } = this.options;
    let requested = false;
    for (const event of await store.readEvents(sessionId, { after: this.lastControlCursor })) {
      this.lastControlCursor = Math.max(this.lastControlCursor, event.cursor);
      if (event.type === 'control.interrupt') requested = true;
    }
    return requested && this.turnActive;
  }

  private async controlLoop(): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    let lastRenewal = Date.now();
    while (!this.stopping) {
      await this.nap(this.pollMs * 2);
      if (this.stopping) break;
      try {
        if (Date.now() - lastRenewal > this.leaseTtlMs / 3) {
          const renewed = await store.renewLease({
            sessionId,
            epoch: this.epoch,
            ttlMs: this.leaseTtlMs,
            now: Date.now(),
          });
          if (!renewed) throw new LeaseLostError('lease renewal refused');
          lastRenewal = Date.now();
        }
        const execution = await store.getExecution(executionId);
        if (execution?.state === 'stopping') {
          this.stopping = 'stop requested';
          if (this.turnActive) await this.session?.interrupt();
          await this.session?.close();
          break;
        }
        if (await this.takeInterruptRequest()) await this.session?.interrupt();
      } catch (error) {
        if (error instanceof LeaseLostError) {
          this.log('lease lost: stopping claude and exiting');
          this.leaseLost = true;
          this.stopping = 'lease lost';
          await this.session?.close();
          break;
        }
        this.log(`control: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private async finish(): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    const reason = this.stopping ?? 'stopped';
    await this.markUndelivered();
    await store.updateExecution(
      executionId,
      { state: 'stopped', endedAt: Date.now(), now: Date.now() },
      { epoch: this.epoch },
    );
    await this.journal([{ type: 'execution.stopped', executionId, reason }]);
    await store.releaseLease({ sessionId, epoch: this.epoch });
    this.log(`stopped: ${reason}`);
  }

  private async fail(error: unknown): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    try {
      const uncertain = await store.updateInputStates({
        sessionId,
        inputIds: (await store.listInputs(sessionId, { states: ['dispatching'] })).map((input) => input.id),
        from: ['dispatching'],
        to: 'uncertain',
        epoch: this.epoch,
        now: Date.now(),
      });
      const message = error instanceof Error ? error.message : String(error);
      await store.updateExecution(
        executionId,
        { state: 'failed', error: { code: 'worker_error', message }, endedAt: Date.now(), now: Date.now() },
        { epoch: this.epoch },
      );
      await this.journal([
        {
          type: 'execution.failed',
          executionId,
          error: { code: 'worker_error', message },
          uncertainInputIds: uncertain.map((input) => input.id),
        },
      ]);
      await store.releaseLease({ sessionId, epoch: this.epoch });
    } catch (secondary) {
      this.log(`could not record the failure: ${String(secondary)}`);
    }
  }
}
