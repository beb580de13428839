import type { Task } from '@a2a-js/sdk';

/**
 * Where a task's work lives, kept in the task's metadata: its agentd session, the input it sent,
 * and the journal range it covers (events after `fromCursor`; translated up to `cursor`).
 */
export interface TaskLink {
  sessionId: string;
  inputId: string;
  /** The task covers the session's journal after this cursor. */
  fromCursor: number;
  /** The last journal cursor whose effect on the task was recorded. */
  cursor: number;
}

export const linkKeys = {
  sessionId: 'agentd.sessionId',
  inputId: 'agentd.inputId',
  fromCursor: 'agentd.fromCursor',
  cursor: 'agentd.cursor',
} as const;

export function linkMetadata(link: TaskLink): Record<string, unknown> {
  return {
    [linkKeys.sessionId]: link.sessionId,
    [linkKeys.inputId]: link.inputId,
    [linkKeys.fromCursor]: link.fromCursor,
    [linkKeys.cursor]: link.cursor,
  };
}

export function cursorMetadata(cursor: number): Record<string, unknown> {
  return { [linkKeys.cursor]: cursor };
}

/** The task's link, or undefined for a task that never reached a session. */
export function taskLink(task: Task): TaskLink | undefined {
  const metadata = task.metadata ?? {};
  const sessionId = metadata[linkKeys.sessionId];
  const inputId = metadata[linkKeys.inputId];
  const fromCursor = metadata[linkKeys.fromCursor];
  const cursor = metadata[linkKeys.cursor];
  if (typeof sessionId !== 'string' || typeof inputId !== 'string' || typeof fromCursor !== 'number')
    return undefined;
  return { sessionId, inputId, fromCursor, cursor: typeof cursor === 'number' ? cursor : fromCursor };
}
