import { randomUUID } from 'node:crypto';
import {
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, DefaultRequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { ConflictError, InvalidInputError } from '../../errors/index.js';
import { toA2aError } from './errors.js';
import { isReplyData } from './hitl.js';
import { a2aInputText } from './message-commands.js';
import { requestedIfBusy, requestedRole } from './message-role.js';
import { isTerminal, promptText } from './parts.js';
import { isRfc3339DateTime } from './rfc3339.js';
import { principalOfCall } from './routes/call-context.js';
import type { TaskEngine } from './task-engine.js';
import { taskLink } from './task-metadata.js';

/** Refuses a `historyLength` that is not a whole number of messages. */
function checkHistoryLength(historyLength: number | undefined): void {
  if (historyLength !== undefined && (!Number.isInteger(historyLength) || historyLength < 0))
    throw new RequestMalformedError('historyLength must be a non-negative integer');
}

/**
 * The SDK's DefaultRequestHandler, with what agentd needs around it: requests are checked before
 * anything is done with them (so a bad one changes nothing), CancelTask interrupts the running
 * turn, and SubscribeToTask rebuilds the task's events from the journal rather than only sending
 * a snapshot. Every failure leaves here as an A2A error (errors.ts), whatever the transport.
 */
export class AgentdRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: DefaultRequestHandler,
    private readonly engine: TaskEngine,
    /** The card; transports read its interfaces and capabilities, not its URLs. */
    private readonly card: () => AgentCard,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  getAuthenticatedExtendedAgentCard(
    params: GetExtendedAgentCardRequest,
    context: ServerCallContext,
  ): Promise<AgentCard> {
    return this.translated(() => this.inner.getAuthenticatedExtendedAgentCard(params, context));
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return this.translated(async () => {
      await this.admit(params.message, context);
      return this.inner.sendMessage(params, context);
    });
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      await this.admit(params.message, context);
      yield* this.inner.sendMessageStream(params, context);
    } catch (error) {
      throw this.toA2aError(error);
    }
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.translated(() => {
      checkHistoryLength(params.historyLength);
      return this.inner.getTask(params, context);
    });
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.translated(() => {
      checkHistoryLength(params.historyLength);
      // The SDK parses any date (`"-1"` is a year); the spec's timestamps are RFC 3339.
      const after = params.statusTimestampAfter;
      if (after !== undefined && after !== '' && !isRfc3339DateTime(after))
        throw new RequestMalformedError('statusTimestampAfter must be an RFC 3339 date-time');
      return this.inner.listTasks(params, context);
    });
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.translated(async () => {
      const task = params.id ? await this.engine.taskStore.load(params.id) : undefined;
      if (task && !isTerminal(task)) await this.engine.interrupt(task);
      return this.inner.cancelTask(params, context);
    });
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.translated(() => this.inner.createTaskPushNotificationConfig(params, context));
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.translated(() => this.inner.getTaskPushNotificationConfig(params, context));
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.translated(() => this.inner.listTaskPushNotificationConfigs(params, context));
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.translated(() => this.inner.deleteTaskPushNotificationConfig(params, context));
  }

  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      if (!params.id?.trim()) throw new RequestMalformedError('task id is required');
      yield* this.engine.replay(params.id);
    } catch (error) {
      throw this.toA2aError(error);
    }
  }

  private toA2aError(error: unknown) {
    return toA2aError(error, (line) => this.engine.log(line));
  }

  private async translated<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.toA2aError(error);
    }
  }

  /**
   * Refuses what would make a task that cannot work; changes nothing when it refuses. A new
   * message's channel is found here, and the role it names selected, before the SDK makes its
   * task: a refusal (`forbidden`, an unknown role, a budget reached) is then the request's error,
   * not a failed task.
   */
  private async admit(message: Message | undefined, context: ServerCallContext): Promise<void> {
    if (!message?.messageId) return; // the SDK refuses it with its own error
    // A client's message is the user's; one that does not say so is not a message A2A knows.
    if (message.role === Role.ROLE_UNSPECIFIED)
      throw new RequestMalformedError('message.role is required (ROLE_USER)');
    const role = requestedRole(message);
    const ifBusy = requestedIfBusy(message);
    if (message.taskId) {
      const task = await this.engine.taskStore.load(message.taskId);
      const state = task?.status?.state;
      if (state === TaskState.TASK_STATE_SUBMITTED || state === TaskState.TASK_STATE_WORKING)
        throw new UnsupportedOperationError(
          `task ${message.taskId} is still working: follow it with SubscribeToTask, cancel it, or continue the conversation with a new message in context ${task?.contextId}`,
        );
      if (task && role !== undefined) await this.checkReplyRole(task, role);
      return;
    }
    const text = promptText(message, isReplyData);
    if (!text) throw new RequestMalformedError('the message has no text for the agent');
    const inputText = a2aInputText(text);
    // The SDK would make up a context for a message without one; making it here lets its channel
    // be checked first.
    if (!message.contextId) message.contextId = randomUUID();
    const session = await this.engine.sessionFor(message.contextId, {
      actor: principalOfCall(context),
      ...(role !== undefined ? { role } : {}),
    });
    // Checked here as well as in the runtime, because a failure once the SDK has made the task only
    // fails that task: the client would get a FAILED task instead of its error.
    const existing = await this.engine.existingInput(session.id, message.messageId);
    if (existing && existing.text !== inputText)
      throw new ConflictError(
        `messageId ${message.messageId} was already used in context ${message.contextId} with another text`,
        { messageId: message.messageId, contextId: message.contextId },
      );
    // A retry of a journaled input is answered as before, limit or not (as the runtime does).
    if (!existing) await this.engine.runtime.budgets.require(session);
    // `agentd.ifBusy: reject` mid-turn: refused here, before the SDK makes a task for it.
    if (!existing) await this.engine.runtime.checkIfBusy(session.id, ifBusy);
  }

  /** A reply answers its task in the task's session: naming another role there is refused. */
  private async checkReplyRole(task: Task, role: string): Promise<void> {
    const link = taskLink(task);
    if (!link) return;
    const { session } = await this.engine.runtime.getSession(link.sessionId);
    if (session.role !== null && session.role !== role)
      throw new InvalidInputError(
        `task ${task.id} runs under role ${session.role}: a reply cannot name another role; send a new message in the context to switch`,
        { taskId: task.id, role, taskRole: session.role },
      );
  }
}
