import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { A2aStore } from '../../store/a2a-store.js';
import { openStates } from './parts.js';

const defaultPageSize = 50;
const openPageSize = 200;

function encodePageToken(statusTimestamp: string, id: string): string {
  return Buffer.from(`${statusTimestamp}|${id}`).toString('base64');
}

function decodePageToken(token: string): { statusTimestamp: string; id: string } {
  const [statusTimestamp, ...rest] = Buffer.from(token, 'base64').toString('utf8').split('|');
  if (statusTimestamp === undefined || rest.length === 0)
    throw new RequestMalformedError('pageToken is not a token this server gave out');
  return { statusTimestamp, id: rest.join('|') };
}

/**
 * The SDK's `TaskStore` on the A2A store (in the agentd data file), so tasks survive restarts and
 * every agentd node sees them. Tasks are kept in the protocol's JSON form. Tasks are not scoped by
 * caller: agentd's bearer tokens all stand for the same operator (see
 * docs/decisions/0021-a2a-tasks-follow-the-journal.md).
 */
export class AgentdTaskStore implements TaskStore {
  constructor(private readonly store: A2aStore) {}

  async save(task: Task): Promise<void> {
    await this.store.saveA2aTask({
      id: task.id,
      contextId: task.contextId,
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      statusTimestamp: task.status?.timestamp ?? '',
      task: Task.toJSON(task) as Record<string, unknown>,
      now: Date.now(),
    });
  }

  async load(taskId: string): Promise<Task | undefined> {
    const record = await this.store.getA2aTask(taskId);
    return record ? Task.fromJSON(record.task) : undefined;
  }

  async list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? defaultPageSize;
    const status = params.status;
    const { tasks, total } = await this.store.listA2aTasks({
      ...(params.contextId ? { contextId: params.contextId } : {}),
      ...(status !== undefined && status !== TaskState.TASK_STATE_UNSPECIFIED
        ? { states: [taskStateToJSON(status)] }
        : {}),
      ...(params.statusTimestampAfter
        ? { statusTimestampAfter: new Date(params.statusTimestampAfter).toISOString() }
        : {}),
      ...(params.pageToken ? { after: decodePageToken(params.pageToken) } : {}),
      limit: pageSize + 1,
    });
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((record) => {
        const task = Task.fromJSON(record.task);
        if (!params.includeArtifacts) task.artifacts = [];
        return task;
      }),
      nextPageToken: tasks.length > pageSize && last ? encodePageToken(last.statusTimestamp, last.id) : '',
      pageSize,
      totalSize: total,
    };
  }

  /** Every task that is not in a terminal state (or waiting for a person), read page by page. */
  async *openTasks(): AsyncGenerator<Task> {
    let after: { statusTimestamp: string; id: string } | undefined;
    for (;;) {
      const { tasks } = await this.store.listA2aTasks({
        states: openStates.map((state) => taskStateToJSON(state)),
        limit: openPageSize,
        ...(after ? { after } : {}),
      });
      for (const record of tasks) yield Task.fromJSON(record.task);
      const last = tasks.at(-1);
      if (tasks.length < openPageSize || !last) return;
      after = { statusTimestamp: last.statusTimestamp, id: last.id };
    }
  }
}
