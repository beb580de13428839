import { setTimeout as sleep } from 'node:timers/promises';
import { type Task, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type RequestHeaders,
  STATE_HEADERS_KEY,
} from '@a2a-js/sdk/server';
import { ConflictError } from '../../errors/index.js';
import type { InteractionRecord } from '../../store/store.js';
import { validTraceparent } from '../http/trace-context.js';
import { toA2aError } from './errors.js';
import { askedInteractionIds, inputRequiredParts, isReplyData, resolveReply } from './hitl.js';
import { requestedIfBusy, requestedRole } from './message-role.js';
import { agentMessage, promptText, status, textPart } from './parts.js';
import { principalOfCall } from './routes/call-context.js';
import type { TaskEngine } from './task-engine.js';
import { linkMetadata, taskLink } from './task-metadata.js';

/**
 * The SDK's AgentExecutor on the Runtime. A new message is sent to the session of its context's
 * channel and its task follows the session's journal (TaskFollower) until the turn ends or waits
 * for a person; a reply on a waiting task answers the pending interactions. The executor returns at those points;
 * the follower keeps the task up to date on its own afterwards.
 */
export class AgentdExecutor implements AgentExecutor {
  constructor(private readonly engine: TaskEngine) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    try {
      if (request.task) return await this.reply(request.task, request, bus);
      return await this.start(request, bus);
    } catch (error) {
      // The SDK fails the task with the failure's message: agentd's own errors keep theirs, but a
      // fault's (the store's, which names the data file) stays in the log.
      throw toA2aError(error, (line) => this.engine.log(line));
    }
  }

  /**
   * A new message: sent to the session of its context's channel (for the role it names, if any),
   * its task following the session's journal.
   */
  private async start(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = request.userMessage;
    const role = requestedRole(message);
    const session = await this.engine.sessionFor(request.contextId, {
      actor: principalOfCall(request.context),
      ...(role !== undefined ? { role } : {}),
    });
    const headers = request.context.state.get(STATE_HEADERS_KEY) as RequestHeaders | undefined;
    const ifBusy = requestedIfBusy(message);
    const { input, fromCursor } = await this.engine.submit(session.id, {
      text: promptText(message, isReplyData),
      messageId: message.messageId,
      ...(ifBusy ? { ifBusy } : {}),
      ...validTraceparent(headers?.traceparent),
    });
    const link = { sessionId: session.id, inputId: input.id, fromCursor, cursor: fromCursor };
    const now = new Date().toISOString();
    const task: Task = {
      id: request.taskId,
      contextId: request.contextId,
      status: status(TaskState.TASK_STATE_SUBMITTED, now),
      history: [message],
      artifacts: [],
      metadata: linkMetadata(link),
    };
    const follower = this.engine.follower(task, link);
    await follower.emit(AgentEvent.task(task), bus);
    await follower.emit(this.statusEvent(task, TaskState.TASK_STATE_WORKING), bus);
    follower.start();
    await follower.restPoint(fromCursor);
  }

  /** A message on a task that waits for a person: the answers it gives, or the question again. */
  private async reply(task: Task, request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { runtime } = this.engine;
    const link = taskLink(task);
    if (!link) {
      bus.publish(AgentEvent.task(task));
      bus.publish(this.statusEvent(task, TaskState.TASK_STATE_FAILED, 'this task never reached a session'));
      return;
    }
    const follower = this.engine.follow(task, link);
    await follower.emit(AgentEvent.task(task), bus);
    const asked = new Set(askedInteractionIds(task.status?.message));
    const pending = (await runtime.interactions({ sessionId: link.sessionId, state: 'pending' })).filter(
      (interaction) => asked.has(interaction.id),
    );
    if (pending.length === 0) {
      // Answered some other way meanwhile (the CLI, the HTTP API): the turn went on without this reply.
      follower.wake();
      await follower.restPoint(link.cursor);
      return;
    }
    const resolved = resolveReply(request.userMessage, pending);
    if (resolved.length === 0) {
      const lead = 'The reply did not answer what is pending.';
      await follower.emit(this.askAgain(task, pending, request.userMessage.messageId, lead), bus);
      return;
    }
    const answered = new Set<string>();
    for (const { interaction, answer } of resolved) {
      try {
        await runtime.answer(interaction.id, answer);
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
      answered.add(interaction.id);
    }
    // A worker that died while the person was asked does not come back on its own (DESIGN.md:
    // only an explicit resume starts one); an answer over A2A is that explicit request.
    await this.engine.ensureWorker(link.sessionId);
    const after = await runtime.lastCursor(link.sessionId);
    const remaining = pending.filter((interaction) => !answered.has(interaction.id));
    if (remaining.length > 0) {
      const lead = 'Answered in part; still pending:';
      await follower.emit(this.askAgain(task, remaining, `remaining-${after}`, lead), bus);
      return;
    }
    follower.wake();
    await follower.restPoint(after);
  }

  /** CancelTask on a task with a live request: the turn was interrupted (AgentdRequestHandler); wait for it to end. */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const task = await this.engine.taskStore.load(taskId);
    const link = task ? taskLink(task) : undefined;
    if (!task || !link) return;
    const follower = this.engine.follow(task, link);
    await follower.caughtUp();
    if (follower.started && !follower.done) {
      const ended = follower.restPoint(link.cursor, { terminalOnly: true });
      await Promise.race([ended, sleep(this.engine.timing.cancelGraceMs)]);
    }
    if (!follower.done) {
      // The input never reached `claude` (it waits behind another turn), or the turn did not stop in time.
      await follower.emit(
        this.statusEvent(task, TaskState.TASK_STATE_CANCELED, 'Task cancellation requested by user.'),
        bus,
      );
      await follower.stop();
      return;
    }
    // The turn ended (interrupted, or done just before): show the SDK's cancel its final state, in
    // case it was published before the cancel started listening.
    const latest = await this.engine.taskStore.load(taskId);
    if (latest?.status)
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId: latest.contextId, status: latest.status, metadata: {} }),
      );
  }

  private askAgain(
    task: Task,
    pending: InteractionRecord[],
    idSuffix: string,
    lead: string,
  ): AgentExecutionEvent {
    const parts = [textPart(lead), ...inputRequiredParts(pending)];
    return AgentEvent.statusUpdate({
      taskId: task.id,
      contextId: task.contextId,
      status: status(
        TaskState.TASK_STATE_INPUT_REQUIRED,
        new Date().toISOString(),
        agentMessage({
          messageId: `${task.id}:ask:${idSuffix}`,
          taskId: task.id,
          contextId: task.contextId,
          parts,
        }),
      ),
      metadata: {},
    });
  }

  private statusEvent(task: Task, state: TaskState, text?: string): AgentExecutionEvent {
    const message =
      text === undefined
        ? undefined
        : agentMessage({
            messageId: `${task.id}:${state}:${Date.now()}`,
            taskId: task.id,
            contextId: task.contextId,
            parts: [textPart(text)],
          });
    return AgentEvent.statusUpdate({
      taskId: task.id,
      contextId: task.contextId,
      status: status(state, new Date().toISOString(), message),
      metadata: {},
    });
  }
}
