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
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, DefaultRequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { isReplyData } from './hitl.js';
import { isTerminal, promptText } from './parts.js';
import type { TaskEngine } from './task-engine.js';

/**
 * The SDK's DefaultRequestHandler, with what agentd needs around it: messages are checked before
 * a task is made of them (so a bad one changes nothing), CancelTask interrupts the running turn,
 * and SubscribeToTask rebuilds the task's events from the journal rather than only sending a
 * snapshot. Everything else is the SDK's.
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
    return this.inner.getAuthenticatedExtendedAgentCard(params, context);
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await this.admit(params.message);
    return this.inner.sendMessage(params, context);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    await this.admit(params.message);
    yield* this.inner.sendMessageStream(params, context);
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.inner.getTask(params, context);
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.listTasks(params, context);
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = params.id ? await this.engine.taskStore.load(params.id) : undefined;
    if (task && !isTerminal(task)) await this.engine.interrupt(task);
    return this.inner.cancelTask(params, context);
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.inner.createTaskPushNotificationConfig(params, context);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.inner.getTaskPushNotificationConfig(params, context);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.inner.listTaskPushNotificationConfigs(params, context);
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.inner.deleteTaskPushNotificationConfig(params, context);
  }

  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse, void, undefined> {
    if (!params.id?.trim()) throw new RequestMalformedError('task id is required');
    yield* this.engine.replay(params.id);
  }

  /** Refuses what would make a task that cannot work; changes nothing when it refuses. */
  private async admit(message: Message | undefined): Promise<void> {
    if (!message?.messageId) return; // the SDK refuses it with its own error
    if (message.taskId) {
      const task = await this.engine.taskStore.load(message.taskId);
      const state = task?.status?.state;
      if (state === TaskState.TASK_STATE_SUBMITTED || state === TaskState.TASK_STATE_WORKING)
        throw new UnsupportedOperationError(
          `task ${message.taskId} is still working: follow it with SubscribeToTask, cancel it, or continue the conversation with a new message in context ${task?.contextId}`,
        );
      return;
    }
    const text = promptText(message, isReplyData);
    if (!text) throw new RequestMalformedError('the message has no text for the agent');
    if (!message.contextId) return;
    const session = await this.engine.sessionFor(message.contextId);
    const existing = await this.engine.existingInput(session.id, message.messageId);
    if (existing && existing.text !== text)
      throw new RequestMalformedError(
        `messageId ${message.messageId} was already used in context ${message.contextId} with another text`,
      );
  }
}
