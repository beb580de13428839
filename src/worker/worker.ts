import {
  type AgentBackend,
  type AgentSession,
  AgentStartError,
  type RewindPoint,
} from '../backends/agent-backend.js';
import type { AgentEvent } from '../backends/agent-event.js';
import { sessionSpecOf } from '../backends/session-spec.js';
import type { ClaudeConfig } from '../config/claude-config.js';
import { AgentdError, LeaseLostError } from '../errors/index.js';
import type { JournalInputOptions } from '../journal/journal-input.js';
import { processStartTime } from '../journal/process-identity.js';
import { ruleTargetsOf } from '../permissions/deciding-rule.js';
import { SeedDriver } from '../seeds/seed-driver.js';
import { toSdkSessionStore } from '../store/session-store-adapter.js';
import type { InputRecord, SessionRecord, Store } from '../store/store.js';
import type { Tracing } from '../telemetry/tracing.js';
import { ControlLoop } from './control-loop.js';
import { ExecutionJournal } from './execution-journal.js';
import { GoalWatcher } from './goal-watcher.js';
import { InputFeed } from './input-feed.js';
import { InteractionBridge } from './interactions.js';
import { LeaseKeeper } from './lease-keeper.js';
import { MonitorInbox } from './monitor-inbox.js';
import { QuietCollection } from './quiet-gc.js';
import { Recovery } from './recovery.js';
import { unfinishedRollback } from './rollback.js';
import { launchConfig, type SessionLaunch } from './session-launch.js';
import type { TurnTracing } from './turn-tracing.js';
import { Waker } from './waker.js';

/**
 * How long a quiet worker waits between looks at the store when nothing wakes it: only a lost wake
 * is found this late (decision 0170; 30 s before).
 */
export const defaultQuietPollMs = 60_000;

/** How long an idle `claude` runs on between turns before it is stopped (decision 0137). */
export const defaultFreezeIdleAfterMs = 5000;

export interface WorkerOptions {
  store: Store;
  backend: AgentBackend;
  sessionId: string;
  executionId: string;
  /** @default 15000 */
  leaseTtlMs?: number;
  /**
   * How often the worker looks for inputs, answers and requests when nothing wakes it (PostgreSQL
   * while its LISTEN connection is down). @default 50
   */
  pollMs?: number;
  /**
   * How often it looks while every change wakes it (SQLite: the runtime on this host signals it;
   * PostgreSQL: LISTEN/NOTIFY): only a safety net for a lost wake. @default 2000
   */
  safetyPollMs?: number;
  /**
   * The same while nothing is under way (no turn, no interaction, no background task or monitor):
   * a lost wake is then found this late at worst. As long as a quiet lease's renewal interval on
   * SQLite, so that the control loop wakes once a minute for both (decision 0170). @default 60000
   */
  quietPollMs?: number;
  /** Stop after this long with no turn, interaction or background task; 0 = never. @default 600000 */
  idleTimeoutMs?: number;
  /**
   * Stop the session's `claude` (SIGSTOP) after this long with nothing under way between turns;
   * it continues before the next input. 0 = never. @default 5000
   */
  freezeIdleAfterMs?: number;
  /** Environment for the backend (credentials); never stored. */
  env?: Record<string, string>;
  /**
   * What the execution adds to the session's stored config once it holds the lease: the provider's
   * environment, the materialized skills (`sessionLaunch`). A typed error fails the execution with
   * its code, the inputs left accepted. @default nothing added
   */
  launch?: (session: SessionRecord) => Promise<SessionLaunch>;
  /** OpenTelemetry tracing; null or absent when off. */
  tracing?: Tracing | null;
  log?: (line: string) => void;
}

/**
 * Why the worker ended, as the process exit code reports it. `duplicate`: another process of the
 * same execution ran or runs; this one left without writing anything.
 */
export const workerExitCodes = { stopped: 0, failed: 1, leaseHeld: 2, leaseLost: 3, duplicate: 4 } as const;

/**
 * One execution: takes the session's lease, feeds accepted inputs to the backend in order, journals
 * every event fenced by the lease epoch, and persists permission requests until they are answered.
 */
export class Worker {
  private session: AgentSession | undefined;
  /** Background tasks the agent reported running (a background shell, a monitor): they keep the worker up. */
  private backgroundTasks = 0;
  private readonly pollMs: number;
  private readonly waker = new Waker();
  private readonly lease: LeaseKeeper;
  private readonly control: ControlLoop;
  private readonly journal: ExecutionJournal;
  private readonly feed: InputFeed;
  private readonly interactions: InteractionBridge;
  private readonly monitors: MonitorInbox;
  private readonly goals = new GoalWatcher();
  private readonly collection: QuietCollection;
  private recovery: Recovery | undefined;
  private tracing: TurnTracing | undefined;
  /** The verification loop, when the session runs a seed. */
  private seed: SeedDriver | null = null;
  /** The input of the turn that runs now, or ran last, and the cursor its events start after. */
  private turn: { inputId: string; afterCursor: number } | undefined;

  constructor(private readonly options: WorkerOptions) {
    const { store, sessionId, executionId } = options;
    this.pollMs = options.pollMs ?? 50;
    const log = (line: string) => this.log(line);
    // When its `claude` is stopped too (decision 0137): the worker's heap shrinks while it is quiet.
    this.collection = new QuietCollection(options.freezeIdleAfterMs || defaultFreezeIdleAfterMs, () =>
      this.quiet(),
    );
    this.lease = new LeaseKeeper({
      store,
      sessionId,
      executionId,
      ...ttl(options.leaseTtlMs),
      // On SQLite every worker is on this host, where a dead one is found by its PID, not its lease;
      // a longer lease only delays taking over from a hung quiet worker. Not so across nodes.
      ...(store.kind === 'sqlite' ? { quiet: () => this.quiet() } : {}),
    });
    const controlNap = this.waker.napper();
    const feedNap = this.waker.napper();
    this.control = new ControlLoop({
      store,
      sessionId,
      executionId,
      lease: this.lease,
      pollMs: this.pollMs * 2,
      // The lease is renewed from this loop: it comes round when the renewal is due at the latest.
      nap: (ms) => controlNap(Math.min(this.napMs(ms), this.lease.untilRenewalMs())),
      turnActive: () => this.feed.turnActive,
      turnInputId: () => this.turn?.inputId,
      // A quiet worker's waits are long (decision 0137): a stop ends them instead.
      onStop: () => this.waker.wake(),
      log,
    });
    this.journal = new ExecutionJournal({
      store,
      sessionId,
      executionId,
      epoch: () => this.lease.epoch,
      log,
    });
    this.interactions = new InteractionBridge({
      store,
      sessionId,
      executionId,
      epoch: () => this.lease.epoch,
      pollMs: this.pollMs * 2,
      // One napper per wait: several tool uses may wait for their answers at once.
      napper: () => {
        const nap = this.waker.napper();
        return (ms) => nap(this.napMs(ms));
      },
      // An interrupt journaled before the answer wins over it: the canceled turn must not go on.
      interrupted: async () => {
        if (!(await this.control.takeInterruptRequest())) return false;
        void this.session?.interrupt();
        return true;
      },
      // Only a transcript mirrored into the store can lag behind the tool use it holds.
      ...(options.backend.transcripts === 'native'
        ? {}
        : { beforeCreate: async (toolUseId: string) => this.recovery?.awaitMirroredToolUse(toolUseId) }),
    });
    this.monitors = new MonitorInbox({ store, sessionId });
    this.feed = new InputFeed({
      store,
      sessionId,
      executionId,
      journal: this.journal,
      pollMs: this.pollMs,
      ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      // Round again when the idle timeout is due at the latest.
      nap: (ms) => feedNap(Math.min(this.napMs(ms), this.feed.untilIdleTimeoutMs())),
      wake: () => this.waker.wake(),
      epoch: () => this.lease.epoch,
      busy: () => this.busy(),
      stopping: () => this.control.stopReason,
      stop: (reason) => this.control.stop(reason),
      onTurnStart: async (inputId, turn) => {
        this.collection.cancel();
        this.turn = { inputId, afterCursor: await store.lastCursor(sessionId) };
        await this.tracing?.startTurn(inputId, turn);
      },
      afterTurn: async () => {
        await this.finishCut();
        await this.seed?.afterTurn();
        this.collection.idle();
      },
      gather: async () =>
        this.monitors.collect().catch((error: unknown) => {
          log(`monitors: ${error instanceof Error ? error.message : String(error)}`);
        }),
    });
  }

  /** Wakes the worker from its poll at once. */
  wake(): void {
    this.waker.wake();
  }

  /** Journals an input the runtime hands over, starting its turn at once when none is under way. */
  handOff(options: JournalInputOptions & { messageId: string }): Promise<InputRecord> {
    return this.feed.handOff(options);
  }

  /**
   * How long a wait between looks at the store lasts: the short poll, unless every change wakes the
   * worker. On SQLite the runtime that writes is on this host and signals it (SIGUSR2); on
   * PostgreSQL inputs and answers arrive by LISTEN/NOTIFY while that is up. A stop or interrupt
   * asked on another node is seen at the next safety poll.
   */
  private napMs(ms: number): number {
    const { store } = this.options;
    const woken = store.kind === 'sqlite' || store.changes?.crossProcess === true;
    if (!woken) return ms;
    // Quiet: only the lease and the idle timeout bring the worker round (decision 0137).
    return Math.max(
      ms,
      this.quiet() ? (this.options.quietPollMs ?? defaultQuietPollMs) : (this.options.safetyPollMs ?? 2000),
    );
  }

  /** No turn, nothing being asked, nothing in the background. */
  private quiet(): boolean {
    return !this.feed.turnActive && !this.busy();
  }

  /** Whether something keeps the worker up between turns. */
  private busy(): boolean {
    return this.interactions.pending > 0 || this.backgroundTasks > 0 || this.monitors.running > 0;
  }

  private log(line: string) {
    this.options.log?.(`${new Date().toISOString()} ${line}`);
  }

  async run(): Promise<number> {
    const { store, sessionId, executionId } = this.options;
    const sessionRecord = await store.getSession(sessionId);
    if (!sessionRecord) throw new Error(`session ${sessionId} not found`);
    const identity = { pid: process.pid, processStartTime: processStartTime(process.pid) };
    const lease = await this.lease.acquire(identity);
    if (!lease.taken) return this.leaseRefused(lease.heldBy);
    await this.control.startAfter();
    const execution = await this.journal.started(identity);
    this.log(`lease epoch ${lease.epoch}; session ${sessionId}`);
    // A stop asked for while the worker was starting: nothing was taken, nothing needs claude.
    if (execution.state === 'stopping') {
      await this.journal.finish('stop requested');
      return workerExitCodes.stopped;
    }

    let launch: SessionLaunch | undefined;
    try {
      launch = await this.options.launch?.(sessionRecord);
    } catch (error) {
      return this.launchFailed(error);
    }
    const config = launchConfig(sessionRecord.config as unknown as ClaudeConfig, launch);
    this.interactions.useRules(ruleTargetsOf(sessionRecord));
    this.recovery = new Recovery({
      store,
      sessionId,
      executionId,
      cwd: sessionRecord.cwd,
      log: (line) => this.log(line),
    });
    // A backend with its own transcripts resumes by its cursor alone, and defers no tool uses.
    const nativeTranscripts = this.options.backend.transcripts === 'native';
    const resume = nativeTranscripts
      ? (sessionRecord.nativeSessionId ?? undefined)
      : await this.recovery.resumableSession(sessionRecord.nativeSessionId);
    if (this.options.tracing) {
      // OpenTelemetry's API loads with the tracer, only when tracing is on.
      const { TurnTracing } = await import('./turn-tracing.js');
      this.tracing = new TurnTracing({
        tracing: this.options.tracing,
        store,
        sessionId,
        model: sessionRecord.model,
      });
    }
    const deferred =
      resume && !nativeTranscripts ? await this.recovery.continueInterruptedToolUses(resume) : [];
    // A backend with its own transcripts continues the waiting tool uses itself, told which they are.
    const waiting = resume && nativeTranscripts ? await this.recovery.waitingToolUses() : [];
    if (waiting.length > 0)
      this.log(`continuing tool uses left waiting: ${waiting.map((tool) => tool.toolUseId).join(', ')}`);
    const rewind = await this.unfinishedRollback(resume);
    this.seed = await SeedDriver.open({
      store,
      sessionId,
      append: (events) => this.journal.append(events),
      env: process.env,
      stopping: () => this.control.stopReason,
      stop: (reason) => this.control.stop(reason),
      log: (line) => this.log(line),
    });
    const session = this.options.backend.startSession({
      spec: sessionSpecOf({
        ...config,
        ...(resume ? { resume } : {}),
        env: { ...config.env, ...this.options.env },
      }),
      inputs: this.feed.inputs(deferred.length > 0 || waiting.length > 0),
      ...(this.seed ? { hostTools: this.seed.hostTools() } : {}),
      canUseTool: (request) => this.interactions.request(request),
      resumeDeferredTool: (toolUseId, signal) => this.interactions.resumeDeferred(toolUseId, signal),
      ...(waiting.length > 0 ? { waitingToolUses: waiting } : {}),
      sessionStore: toSdkSessionStore(store),
      onStderr: (line) => this.log(`${this.options.backend.name}: ${line.trimEnd()}`),
      ...(rewind ? { rewind } : {}),
      freezeIdleAfterMs: this.options.freezeIdleAfterMs ?? defaultFreezeIdleAfterMs,
    });
    this.session = session;
    const control = this.control.run(session);
    let outcome: number = workerExitCodes.stopped;
    try {
      for await (const event of session) await this.record(event);
    } catch (error) {
      if (error instanceof LeaseLostError || this.lease.lost) outcome = workerExitCodes.leaseLost;
      else {
        outcome = workerExitCodes.failed;
        this.log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        await this.journal.fail({
          code: error instanceof AgentStartError ? error.code : 'worker_error',
          message: error instanceof Error ? error.message : String(error),
          inputsNeverSent: error instanceof AgentStartError,
        });
      }
    } finally {
      this.control.stop('session ended');
      this.tracing?.endTurn();
      await control;
    }
    if (this.lease.lost) return workerExitCodes.leaseLost;
    if (outcome === workerExitCodes.stopped)
      await this.journal.finish(this.control.stopReason ?? 'session ended');
    return outcome;
  }

  /**
   * The session could not be started (a provider secret missing, a skill corrupt): the execution
   * fails with the error's code, and the inputs stay accepted for a later one.
   */
  private async launchFailed(error: unknown): Promise<number> {
    const code = error instanceof AgentdError ? error.code : 'worker_error';
    const message = error instanceof Error ? error.message : String(error);
    // A typed error says all there is to say; anything else is a fault worth its stack.
    this.log(
      `could not start the session: ${code}: ${error instanceof AgentdError ? message : String((error as Error)?.stack ?? message)}`,
    );
    await this.journal.fail({ code, message, inputsNeverSent: true });
    return workerExitCodes.failed;
  }

  /**
   * Another execution holds the session: this one failed (only while it is still starting, so a
   * record someone else wrote is kept). A duplicate process of this execution writes nothing.
   */
  private async leaseRefused(heldBy: 'self' | 'other'): Promise<number> {
    if (heldBy === 'self') {
      this.log('this execution runs, or ran, in another process; exiting without writing');
      return workerExitCodes.duplicate;
    }
    this.log('lease held by another worker; exiting');
    await this.journal.leaseHeld();
    return workerExitCodes.leaseHeld;
  }

  /**
   * After a turn that a message sent mid-turn interrupted: the turn is marked (its events stay),
   * and for a rollback the agent resumes from before it at the next turn.
   */
  private async finishCut(): Promise<void> {
    const turn = this.turn;
    const cut = this.control.takeCut(turn?.inputId);
    if (!turn || !cut) return;
    const point = cut.rollback ? await this.recovery?.rewindPoint(cut.inputId) : null;
    if (point) this.session?.rewind?.(point);
    const { store, sessionId } = this.options;
    await this.journal.append([
      {
        type: 'turn.interrupted',
        inputId: cut.inputId,
        byInputId: cut.byInputId,
        rolledBack: cut.rollback,
        fromCursor: turn.afterCursor + 1,
        toCursor: await store.lastCursor(sessionId),
      },
    ]);
    this.log(`turn of input ${cut.inputId} ${cut.rollback ? 'rolled back' : 'interrupted'}`);
  }

  /** A rollback the worker before this one was killed in the middle of: finished here, before any turn. */
  private async unfinishedRollback(resume: string | undefined): Promise<RewindPoint | undefined> {
    const { store, sessionId } = this.options;
    const pending = await unfinishedRollback(store, sessionId);
    if (!pending) return undefined;
    const point = resume ? await this.recovery?.rewindPoint(pending.inputId) : null;
    await this.journal.append([
      {
        type: 'turn.interrupted',
        inputId: pending.inputId,
        byInputId: pending.byInputId,
        rolledBack: true,
        fromCursor: pending.fromCursor,
        toCursor: await store.lastCursor(sessionId),
      },
    ]);
    this.log(`turn of input ${pending.inputId} rolled back after its worker died`);
    return point ?? undefined;
  }

  private async record(event: AgentEvent): Promise<void> {
    this.feed.touch();
    this.tracing?.onEvent(event);
    if (event.type === 'claude.message' && event.subtype === 'background_tasks_changed') {
      const tasks = (event.raw as { tasks?: unknown[] } | undefined)?.tasks;
      this.backgroundTasks = Array.isArray(tasks) ? tasks.length : 0;
    }
    // Delivered and journaled in one transaction; not this execution's input: nothing written.
    if (event.type === 'input.delivered') {
      if (!(await this.journal.delivered(event.inputId, event))) return;
    } else {
      // Every turn announces the session; its id is written only when it changes (a new or forked one).
      if (
        event.type === 'session.started' &&
        event.sessionId &&
        this.recovery &&
        this.recovery.nativeSessionId !== event.sessionId
      ) {
        this.recovery.nativeSessionId = event.sessionId;
        await this.journal.nativeSession(event.sessionId);
      }
      await this.journal.append([event, ...this.goals.observe(event)]);
    }
    // agent.error is final: the backend retries before it gives up.
    if (event.type === 'agent.error') await this.journal.markUndelivered();
    // A turn the agent ran on its own, between inputs, settles here; the feed settles the others.
    if (!this.feed.turnActive && (event.type === 'agent.turn.completed' || event.type === 'agent.error'))
      await this.journal.settle();
  }
}

function ttl(leaseTtlMs: number | undefined): { ttlMs?: number } {
  return leaseTtlMs === undefined ? {} : { ttlMs: leaseTtlMs };
}
