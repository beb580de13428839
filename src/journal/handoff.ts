import { join } from 'node:path';
import type { InputRecord } from '../store/store.js';
import type { DataPaths } from './data-dir.js';
import type { InputSource } from './journal-event.js';

/**
 * An input the runtime hands to the live worker of its session on this host, over the worker's
 * socket (decision 0132): the worker journals it and, when it waits for one, starts its turn in the
 * same transaction, one commit instead of the runtime's and then the worker's. One JSON line each
 * way. Whatever goes wrong before the reply, the runtime journals the input itself: the message id
 * makes both the same input.
 */
export interface HandoffMessage {
  sessionId: string;
  executionId: string;
  messageId: string;
  text: string;
  command?: boolean;
  traceparent?: string;
  source?: InputSource;
}

/** The worker's reply: the input as journaled (`dispatching` when its turn started), or why not. */
export type HandoffReply = { input: InputRecord } | { refused: string };

/** The longest path a Unix socket may have on Linux, with its terminating NUL. */
const maxSocketPath = 107;

/**
 * Where the worker of `executionId` listens, in the private data directory; null when that path is
 * too long for a Unix socket (a deep data directory): the runtime then journals inputs itself.
 */
export function handoffSocketPath(paths: DataPaths, executionId: string): string | null {
  const path = join(paths.root, 'run', `${executionId}.sock`);
  return Buffer.byteLength(path) <= maxSocketPath ? path : null;
}

/** The message, if `value` is one (the worker checks what it reads from its socket). */
export function parseHandoffMessage(value: unknown): HandoffMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const message = value as Record<string, unknown>;
  const strings = ['sessionId', 'executionId', 'messageId', 'text'].every(
    (key) => typeof message[key] === 'string' && message[key] !== '',
  );
  const optional =
    (message.command === undefined || typeof message.command === 'boolean') &&
    (message.traceparent === undefined || typeof message.traceparent === 'string') &&
    (message.source === undefined || (typeof message.source === 'object' && message.source !== null));
  if (!strings || !optional) return null;
  // Only the fields of a message: nothing else read from the socket reaches the journal.
  return {
    sessionId: message.sessionId as string,
    executionId: message.executionId as string,
    messageId: message.messageId as string,
    text: message.text as string,
    ...(message.command === true ? { command: true } : {}),
    ...(message.traceparent !== undefined ? { traceparent: message.traceparent as string } : {}),
    ...(message.source !== undefined ? { source: message.source as InputSource } : {}),
  };
}
