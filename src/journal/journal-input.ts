import { randomUUID } from 'node:crypto';
import type { InputRecord, Store } from '../store/store.js';
import { type InputSource, journalEntry } from './journal-event.js';

export interface JournalInputOptions {
  text: string;
  /** The client's id for the input; the same id and text is the same input. @default a new UUID */
  messageId?: string;
  /** True for a command the agent gets as its command (`/compact`). @default false */
  command?: boolean;
  traceparent?: string;
  /** Where the input came from when not from a client of the session. */
  source?: InputSource;
}

/**
 * Journals an input (`input.accepted`) once; the same message id and text is the same input, the
 * same id with other text a `conflict`. Whoever journals it makes sure a worker delivers it.
 */
export async function journalInput(
  store: Store,
  sessionId: string,
  options: JournalInputOptions,
): Promise<InputRecord> {
  const { input, created } = await store.addInput({
    id: randomUUID(),
    sessionId,
    messageId: options.messageId ?? randomUUID(),
    text: options.text,
    now: Date.now(),
  });
  if (created) {
    await store.appendEvents(
      sessionId,
      [
        journalEntry({
          type: 'input.accepted',
          inputId: input.id,
          messageId: input.messageId,
          text: input.text,
          ...(options.command ? { command: true } : {}),
          ...(options.traceparent ? { traceparent: options.traceparent } : {}),
          ...(options.source ? { source: options.source } : {}),
        }),
      ],
      { now: Date.now() },
    );
  }
  return input;
}
