import { randomUUID } from 'node:crypto';
import { type Task, TaskState } from '@a2a-js/sdk';
import { type AgentExecutionEvent, type ExecutionEventBus, ResultManager } from '@a2a-js/sdk/server';
import { TaskTranslator } from './journal-translator.js';
import { terminalStates } from './parts.js';
import type { TaskEngine } from './task-engine.js';
import type { TaskLink } from './task-metadata.js';

interface Waiter {
  after: number;
  terminalOnly: boolean;
  resolve: (state: TaskState) => void;
}

/** States at which a request on the task returns: the task ended, or it waits for a person. */
function isRestState(state: TaskState): boolean {
  return terminalStates.has(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED;
}

/**
 * Keeps one task in step with its session's journal, whether or not a client is connected: it
 * reads the journal from the task's start, translates (TaskTranslator), records each new event in
 * the task store, publishes it to the task's live event bus (if a request is attached) and hands it
 * to the push sender. It ends when the task does. Events the task store already recorded (up to the
 * task's `agentd.cursor`) are replayed to rebuild the translator's state, with no side effects.
 */
export class TaskFollower {
  readonly taskId: string;
  private readonly translator: TaskTranslator;
  private readonly results: ResultManager;
  private readonly recordedUpTo: number;
  private cursor: number;
  private waiters: Waiter[] = [];
  private restCursor = -1;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private stopped = false;
  private readonly caughtUpOnce: Promise<void>;
  private markCaughtUp!: () => void;

  constructor(
    private readonly engine: TaskEngine,
    task: Pick<Task, 'id' | 'contextId'>,
    readonly link: TaskLink,
  ) {
    this.taskId = task.id;
    this.translator = new TaskTranslator({
      taskId: task.id,
      contextId: task.contextId,
      inputId: link.inputId,
    });
    this.results = new ResultManager(engine.taskStore, engine.context);
    this.cursor = link.fromCursor;
    this.recordedUpTo = link.cursor;
    this.caughtUpOnce = new Promise((resolve) => {
      this.markCaughtUp = resolve;
    });
  }

  /** The task's input reached `claude`: its turn is the one running. */
  get started(): boolean {
    return this.translator.started;
  }

  get done(): boolean {
    return this.translator.done;
  }

  /**
   * Records an event in the task store, then publishes it on `bus` (or the task's live bus) and
   * queues it for push notifications under `eventId` (events from the journal are named by their
   * cursor, the same on every node; others by a new id).
   */
  async emit(
    event: AgentExecutionEvent,
    bus?: ExecutionEventBus,
    eventId = `${this.taskId}:${randomUUID()}`,
  ): Promise<void> {
    await this.results.processEvent(event);
    (bus ?? this.engine.liveBus(this.taskId))?.publish(event);
    await this.engine.push(event, this.results.getCurrentTask(), eventId);
  }

  start(): void {
    this.running ??= this.loop()
      .catch((error: unknown) => {
        if (!this.stopped) this.engine.log(`following task ${this.taskId} failed: ${String(error)}`);
      })
      .finally(() => {
        this.markCaughtUp();
        this.engine.forget(this);
        this.settleWaiters(() => true);
      });
  }

  /** Resolves once the follower has read the journal to its end once (or stopped). */
  caughtUp(): Promise<void> {
    return this.caughtUpOnce;
  }

  /**
   * Resolves with the task's state once it ends or waits for a person at a journal cursor after
   * `after` (with `terminalOnly`, once it ends), or when the follower stops.
   */
  restPoint(after: number, options: { terminalOnly?: boolean } = {}): Promise<TaskState> {
    const terminalOnly = options.terminalOnly ?? false;
    const state = this.translator.state;
    if (this.translator.done || (!this.running && this.stopped)) return Promise.resolve(state);
    if (!terminalOnly && isRestState(state) && this.restCursor > after) return Promise.resolve(state);
    return new Promise((resolve) => this.waiters.push({ after, terminalOnly, resolve }));
  }

  /** Look at the journal now rather than at the next poll (an answer was just given). */
  wake(): void {
    this.wakeUp?.();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    const { runtime } = this.engine;
    // New events end the pause at once (LISTEN/NOTIFY across nodes, SQLite's wake file across
    // processes); the poll stays as the fallback.
    const unwatch = runtime.watchEvents(this.link.sessionId, () => this.wake());
    try {
      await this.follow();
    } finally {
      unwatch();
    }
  }

  private async follow(): Promise<void> {
    const { runtime, timing } = this.engine;
    let quietSince = Date.now();
    let workerMissing = false;
    while (!this.stopped && !this.translator.done) {
      let progressed = false;
      for await (const event of runtime.events(this.link.sessionId, { after: this.cursor })) {
        progressed = true;
        this.cursor = event.cursor;
        for (const [index, out] of this.translator.translate(event).entries())
          await this.deliver(out, event.cursor, `${this.taskId}:${event.cursor}.${index}`);
        if (this.translator.done || this.stopped) break;
      }
      this.markCaughtUp();
      if (this.translator.done || this.stopped) break;
      if (progressed) {
        quietSince = Date.now();
        workerMissing = false;
        continue;
      }
      if (!this.translator.paused && Date.now() - quietSince >= timing.livenessMs) {
        quietSince = Date.now();
        // Two looks in a row, so a worker being replaced (an idle one leaving) is not taken for none.
        const missing = await this.inputStranded();
        if (missing && workerMissing) {
          const message =
            'no worker is running to deliver this message; send it again (the same messageId delivers it)';
          const createdAt = Date.now();
          const failure = this.translator.fail({
            cursor: this.cursor,
            createdAt,
            message,
            code: 'no_worker',
          });
          for (const [index, out] of failure.entries())
            await this.deliver(out, this.cursor, `${this.taskId}:${this.cursor}.no_worker.${index}`);
          break;
        }
        workerMissing = missing;
      }
      await this.pause(this.pauseMs());
    }
  }

  /** Between looks at the journal: long while every change wakes the follower, short otherwise. */
  private pauseMs(): number {
    const { runtime, timing } = this.engine;
    const short = this.translator.paused ? timing.pausedPollMs : timing.pollMs;
    return runtime.changesWake ? Math.max(short, timing.safetyPollMs) : short;
  }

  /**
   * True when the task's input is still waiting to be delivered and no worker is there to do it.
   * Looking for the live worker also lets the supervisor journal the death of one that died unseen,
   * which the next read then translates.
   */
  private async inputStranded(): Promise<boolean> {
    const { runtime } = this.engine;
    const live = await runtime.liveExecution(this.link.sessionId);
    if (live || this.translator.started) return false;
    const inputs = await runtime.listInputs(this.link.sessionId);
    return inputs.some((input) => input.id === this.link.inputId && input.state === 'accepted');
  }

  private async deliver(event: AgentExecutionEvent, cursor: number, eventId: string): Promise<void> {
    if (cursor > this.recordedUpTo) await this.emit(event, undefined, eventId);
    // The last recorded event may be the one a node died with before queuing its push.
    else if (cursor === this.recordedUpTo) await this.engine.push(event, undefined, eventId);
    const state = this.translator.state;
    if (event.kind === 'statusUpdate' && isRestState(state)) {
      this.restCursor = cursor;
      this.settleWaiters((waiter) =>
        waiter.terminalOnly ? terminalStates.has(state) : waiter.after < cursor,
      );
    }
  }

  private settleWaiters(ready: (waiter: Waiter) => boolean): void {
    const state = this.translator.state;
    const remaining: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (ready(waiter)) waiter.resolve(state);
      else remaining.push(waiter);
    }
    this.waiters = remaining;
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
