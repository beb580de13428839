import { type Message, type Part, Role, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';

/** kagent's DataPart metadata: `kagent_type` tells a function call from its response. */
export const kagentTypeKey = 'kagent_type';
export const kagentLongRunningKey = 'kagent_is_long_running';

export function textPart(text: string, metadata?: Record<string, unknown>): Part {
  return { content: { $case: 'text', value: text }, metadata, filename: '', mediaType: 'text/plain' };
}

export function dataPart(data: Record<string, unknown>, metadata?: Record<string, unknown>): Part {
  return { content: { $case: 'data', value: data }, metadata, filename: '', mediaType: 'application/json' };
}

export function agentMessage(options: {
  messageId: string;
  taskId: string;
  contextId: string;
  parts: Part[];
}): Message {
  return {
    messageId: options.messageId,
    taskId: options.taskId,
    contextId: options.contextId,
    role: Role.ROLE_AGENT,
    parts: options.parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function status(state: TaskState, timestamp: string, message?: Message): TaskStatus {
  return { state, message, timestamp };
}

export const terminalStates: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** States in which a task still has work ahead of it (the ones reconciled at start). */
export const openStates: readonly TaskState[] = [
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
];

export function isTerminal(task: Task | undefined): boolean {
  return task?.status !== undefined && terminalStates.has(task.status.state);
}

export function dataOf(part: Part): Record<string, unknown> | undefined {
  if (part.content?.$case !== 'data') return undefined;
  const value: unknown = part.content.value;
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * What a user message says to the agent: its text parts, DataParts other than agentd's own reply
 * formats as JSON (as kagent passes them on), and file references by URL.
 */
export function promptText(message: Message, isReply: (data: Record<string, unknown>) => boolean): string {
  const lines: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (!content) continue;
    if (content.$case === 'text') lines.push(content.value);
    else if (content.$case === 'url') lines.push(`[file ${part.filename || 'attachment'}: ${content.value}]`);
    else if (content.$case === 'data') {
      const data = dataOf(part);
      if (!data || !isReply(data)) lines.push(JSON.stringify(content.value));
    }
  }
  return lines.join('\n').trim();
}
