import { randomUUID } from 'node:crypto';
import type { IfBusy } from '../runtime/double-texting.js';
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
  /** What the sender asked for if the session was mid-turn; journaled when it cut that turn. */
  ifBusy?: IfBusy;
  /** The live worker journaling the input itself: it starts its turn in the same transaction (`addInput`). */
  dispatch?: { executionId: string; epoch: number };
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
  return (await addJournalInput(store, sessionId, options)).input;
}

/** `journalInput`, saying whether the input is new (`created`). */
export async function addJournalInput(
  store: Store,
  sessionId: string,
  options: JournalInputOptions,
): Promise<{ input: InputRecord; created: boolean }> {
  const id = randomUUID();
  const messageId = options.messageId ?? randomUUID();
  // The input and its `input.accepted` are one transaction: one fsync, and never one without the other.
  return store.addInput({
    id,
    sessionId,
    messageId,
    text: options.text,
    now: Date.now(),
    event: journalEntry({
      type: 'input.accepted',
      inputId: id,
      messageId,
      text: options.text,
      ...(options.command ? { command: true } : {}),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      ...(options.source ? { source: options.source } : {}),
      ...(options.ifBusy === 'interrupt' || options.ifBusy === 'rollback' ? { ifBusy: options.ifBusy } : {}),
    }),
    ...(options.dispatch ? { dispatch: options.dispatch } : {}),
  });
}
