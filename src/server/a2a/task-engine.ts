import { setTimeout as sleep } from 'node:timers/promises';
import { type StreamResponse, type Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  type AgentExecutionEvent,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import type { ClaudeConfig } from '../../config/claude-config.js';
import { ConflictError, StateError } from '../../errors/index.js';
import type { IfBusy } from '../../runtime/double-texting.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { InputRecord, SessionRecord } from '../../store/store.js';
import { askedInteractionIds } from './hitl.js';
import { TaskTranslator } from './journal-translator.js';
import { agentMessage, isTerminal, textPart } from './parts.js';
import type { PushDispatcher } from './push-dispatcher.js';
import { TaskFollower } from './task-follower.js';
import { type TaskLink, taskLink } from './task-metadata.js';
import type { AgentdTaskStore } from './task-store.js';

export interface SessionDefaults {
  /** Working directory of the sessions A2A contexts' channels start. @default the runtime's (CLAUDE_CWD, else the server's) */
  cwd?: string;
  /** Settings over the runtime's base config for those sessions. @default none */
  config?: Partial<ClaudeConfig>;
}

export interface EngineTiming {
  /** How often a follower reads the journal while the turn runs. @default 100 */
  pollMs: number;
  /** …and while the task waits for a person. @default 1000 */
  pausedPollMs: number;
  /**
   * …and while every journal change wakes it (LISTEN/NOTIFY; SQLite's wake file): only a safety
   * net for a lost wake. @default 1000
   */
  safetyPollMs: number;
  /** Quiet time after which a follower checks that a worker is there. @default 5000 */
  livenessMs: number;
  /** How long a cancel waits for the interrupted turn to end before it marks the task canceled itself. @default 10000 */
  cancelGraceMs: number;
}

export interface ReconcileReport {
  /** Open tasks found at start, by the state each was in once its journal had been read. */
  tasks: Array<{ id: string; before: string; after: string }>;
}

/** The translation's state that is not the SDK's: sessions, journal followers, replay and reconciliation. */
export class TaskEngine {
  /** The context of the engine's own task store writes (no tenant, no caller: see AgentdTaskStore). */
  readonly context = new ServerCallContext();
  readonly runtime: Runtime;
  readonly taskStore: AgentdTaskStore;
  readonly timing: EngineTiming;
  private readonly followers = new Map<string, TaskFollower>();
  private readonly pushes: PushDispatcher;
  private readonly busManager: ExecutionEventBusManager;
  private readonly sessionDefaults: SessionDefaults;
  private readonly logLine: ((line: string) => void) | undefined;
  private closed = false;

  constructor(options: {
    runtime: Runtime;
    taskStore: AgentdTaskStore;
    pushes: PushDispatcher;
    busManager: ExecutionEventBusManager;
    sessionDefaults?: SessionDefaults;
    timing?: Partial<EngineTiming>;
    log?: (line: string) => void;
  }) {
    this.runtime = options.runtime;
    this.taskStore = options.taskStore;
    this.pushes = options.pushes;
    this.busManager = options.busManager;
    this.sessionDefaults = options.sessionDefaults ?? {};
    this.timing = {
      pollMs: 100,
      pausedPollMs: 1000,
      safetyPollMs: 1000,
      livenessMs: 5000,
      cancelGraceMs: 10_000,
      ...options.timing,
    };
    this.logLine = options.log;
  }

  log(line: string): void {
    this.logLine?.(line);
  }

  /**
   * The session a message in an A2A context goes to: the context is the channel
   * `a2a:<contextId>` (bound on first use, in the default project), and its session is the one of
   * the channel's selected role. Naming a role selects it first, with the runtime's permission
   * checks (`forbidden`, `not_found`); later messages that name none stay with it
   * (docs/decisions/0063-a2a-contexts-are-channels.md).
   */
  async sessionFor(contextId: string, options: { role?: string; actor: string }): Promise<SessionRecord> {
    return this.runtime.channels.session(a2aChannelKey(contextId), {
      actor: options.actor,
      ...(options.role !== undefined ? { role: options.role } : {}),
      ...(this.sessionDefaults.cwd ? { cwd: this.sessionDefaults.cwd } : {}),
      ...(this.sessionDefaults.config ? { config: this.sessionDefaults.config } : {}),
    });
  }

  /** The input a message is, if its message id was used in the session before. */
  async existingInput(sessionId: string, messageId: string): Promise<InputRecord | null> {
    return this.runtime.getInput(sessionId, messageId);
  }

  /**
   * Sends a message (idempotent on its message id) and returns the input and the journal cursor
   * after which its task's events are: before the `input.accepted` of the input.
   */
  async submit(
    sessionId: string,
    options: { text: string; messageId: string; traceparent?: string; ifBusy?: IfBusy },
  ): Promise<{ input: InputRecord; fromCursor: number }> {
    const existing = await this.existingInput(sessionId, options.messageId);
    const before = existing ? undefined : await this.runtime.lastCursor(sessionId);
    const input = await this.runtime.send(sessionId, options);
    const fromCursor = before ?? (await this.acceptedCursor(sessionId, input.id)) - 1;
    return { input, fromCursor };
  }

  private async acceptedCursor(sessionId: string, inputId: string): Promise<number> {
    for await (const event of this.runtime.events(sessionId)) {
      if (event.type === 'input.accepted' && event.data.inputId === inputId) return event.cursor;
    }
    return 1;
  }

  /** The follower of a task, started if need be. */
  follow(task: Pick<Task, 'id' | 'contextId'>, link: TaskLink): TaskFollower {
    const follower = this.follower(task, link);
    follower.start();
    return follower;
  }

  /** The follower of a task, created (not started) if need be. */
  follower(task: Pick<Task, 'id' | 'contextId'>, link: TaskLink): TaskFollower {
    let follower = this.followers.get(task.id);
    if (!follower) {
      follower = new TaskFollower(this, task, link);
      if (!this.closed) this.followers.set(task.id, follower);
    }
    return follower;
  }

  forget(follower: TaskFollower): void {
    if (this.followers.get(follower.taskId) === follower) this.followers.delete(follower.taskId);
  }

  liveBus(taskId: string): ExecutionEventBus | undefined {
    return this.busManager.getByTaskId(taskId, this.context);
  }

  /**
   * Queues an event for the task's push notifications, under an id that names it the same way on
   * every node (the node holding the push duty sends it).
   */
  async push(event: AgentExecutionEvent, task: Task | undefined, eventId: string): Promise<void> {
    await this.pushes.queue({ eventId, response: { payload: toPayload(event) }, task });
  }

  /**
   * The push duty's part here: the open tasks with push configs that no follower of this node
   * follows get one, so a task whose node died keeps notifying (where its node is alive, both follow
   * it; their events are queued once).
   */
  async adoptPushTasks(): Promise<void> {
    for await (const task of this.taskStore.openTasks()) {
      if (this.closed || this.followers.has(task.id)) continue;
      const link = taskLink(task);
      if (link && (await this.pushes.notifies(task.id))) this.follow(task, link);
    }
  }

  /**
   * Cancelling a task interrupts its turn, if its turn is the one running, and denies what it
   * still waits for, so nothing stays pending for a task that is over.
   */
  async interrupt(task: Task): Promise<TaskFollower | undefined> {
    const link = taskLink(task);
    if (!link) return undefined;
    const follower = this.follow(task, link);
    await follower.caughtUp();
    if (!follower.started || follower.done) return follower;
    await this.runtime.interrupt(link.sessionId, 'the A2A task was canceled');
    const asked = new Set(askedInteractionIds(task.status?.message));
    for (const interaction of await this.runtime.interactions({
      sessionId: link.sessionId,
      state: 'pending',
    })) {
      if (!asked.has(interaction.id)) continue;
      await this.runtime
        .answer(interaction.id, { decision: 'deny', reason: 'The task was canceled.' })
        .catch((error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
        });
    }
    return follower;
  }

  /** Starts a worker for a session whose worker died while a person was being asked. */
  async ensureWorker(sessionId: string): Promise<void> {
    if (await this.runtime.liveExecution(sessionId)) return;
    await this.runtime.resume(sessionId).catch((error: unknown) => {
      if (!(error instanceof StateError)) throw error;
    });
  }

  /**
   * SubscribeToTask: the task as stored, then its events rebuilt from the journal from the task's
   * start, following the journal until the task ends or waits for a person.
   */
  async *replay(taskId: string): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.taskStore.load(taskId);
    if (!task) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    if (isTerminal(task))
      throw new UnsupportedOperationError(
        `Task ${taskId} is in a terminal state (${taskStateToJSON(task.status!.state)}); read it with GetTask`,
      );
    yield { payload: { $case: 'task', value: task } };
    const link = taskLink(task);
    if (!link) return;
    const translator = new TaskTranslator({ taskId, contextId: task.contextId, inputId: link.inputId });
    let cursor = link.fromCursor;
    while (!this.closed) {
      let progressed = false;
      for await (const event of this.runtime.events(link.sessionId, { after: cursor })) {
        progressed = true;
        cursor = event.cursor;
        for (const out of translator.translate(event)) yield { payload: toPayload(out) };
        if (translator.done) return;
      }
      if (progressed) continue;
      if (translator.paused) return;
      // The task may have ended for a reason the journal does not carry (a cancel that did not
      // stop the turn in time, a message no worker could deliver).
      const latest = await this.taskStore.load(taskId);
      if (latest && isTerminal(latest)) {
        yield {
          payload: {
            $case: 'statusUpdate',
            value: { taskId, contextId: latest.contextId, status: latest.status, metadata: latest.metadata },
          },
        };
        return;
      }
      await sleep(this.timing.pollMs);
    }
  }

  /**
   * Tasks that were open when the server stopped: each gets a follower, which brings it up to date
   * from the journal (so a turn that ended meanwhile completes or fails it) and then keeps it in
   * step with the detached worker, which kept working. Resolves once every one has been read up.
   */
  async reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { tasks: [] };
    const found: Array<{ task: Task; follower?: TaskFollower }> = [];
    for await (const task of this.taskStore.openTasks()) {
      const link = taskLink(task);
      if (link) found.push({ task, follower: this.follow(task, link) });
      else {
        await this.failUnlinked(task);
        found.push({ task });
      }
    }
    await Promise.all(found.map(({ follower }) => follower?.caughtUp()));
    for (const { task } of found) {
      const latest = await this.taskStore.load(task.id);
      report.tasks.push({
        id: task.id,
        before: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
        after: taskStateToJSON(latest?.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      });
    }
    return report;
  }

  private async failUnlinked(task: Task): Promise<void> {
    const follower = new TaskFollower(this, task, { sessionId: '', inputId: '', fromCursor: 0, cursor: 0 });
    const message = agentMessage({
      messageId: `${task.id}:unlinked`,
      taskId: task.id,
      contextId: task.contextId,
      parts: [textPart('agentd stopped before this task reached its session; send the message again')],
    });
    await follower.emit(
      AgentEvent.statusUpdate({
        taskId: task.id,
        contextId: task.contextId,
        status: { state: TaskState.TASK_STATE_FAILED, message, timestamp: new Date().toISOString() },
        metadata: { 'agentd.errorCode': 'not_started' },
      }),
      undefined,
      `${task.id}:unlinked`,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.followers.values()].map((follower) => follower.stop()));
    this.followers.clear();
  }
}

/** The channel an A2A context is. */
export function a2aChannelKey(contextId: string): string {
  return `a2a:${contextId}`;
}

export function toPayload(event: AgentExecutionEvent): NonNullable<StreamResponse['payload']> {
  switch (event.kind) {
    case 'task':
      return { $case: 'task', value: event.data };
    case 'message':
      return { $case: 'message', value: event.data };
    case 'statusUpdate':
      return { $case: 'statusUpdate', value: event.data };
    case 'artifactUpdate':
      return { $case: 'artifactUpdate', value: event.data };
  }
}
