import type { JournalRecord } from '../journal/journal-event.js';
import type { Runtime } from '../runtime/runtime.js';
import type { InteractionRecord } from '../store/store.js';
import type { ChatAdapter } from './chat-adapter.js';
import { type ReplyView, renderInteraction, renderReply } from './chat-render.js';

/** Where an interaction's card is, so that an answer from anywhere updates it. */
export interface Card {
  chatId: string;
  messageId: string;
  interaction: InteractionRecord;
  /** Set once the card shows its answer. */
  answered: boolean;
}

export interface ReplyStreamOptions {
  runtime: Runtime;
  adapter: ChatAdapter;
  chatId: string;
  sessionId: string;
  /** The input this reply answers. */
  inputId: string;
  /** The platform message the reply answers. */
  replyTo?: string;
  /** Cards of this bridge, by interaction id: one card per interaction, whichever reply saw it. */
  cards: Map<string, Card>;
  /** Least time between two edits of the reply. */
  editIntervalMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** The cursor of the input's `input.accepted`, read from the journal; null if it is not there. */
async function acceptedCursor(runtime: Runtime, sessionId: string, inputId: string): Promise<number | null> {
  for await (const record of runtime.events(sessionId)) {
    if (record.type === 'input.accepted' && record.data.inputId === inputId) return record.cursor;
  }
  return null;
}

/**
 * Streams the reply to one input: a message sent at once and edited as the turn goes (text, the
 * tool running, status, cost), with a card for each approval or question it asks. Everything it
 * shows is read from the journal, from the input's own cursor, so a bridge that restarts shows the
 * same reply again.
 */
export async function streamReply(options: ReplyStreamOptions): Promise<void> {
  const { runtime, adapter, chatId, sessionId, inputId, cards } = options;
  const cursor = await acceptedCursor(runtime, sessionId, inputId);
  if (cursor === null) return;
  const view: ReplyView = { text: '', tool: null, status: 'working', costUsd: null };
  let shown = renderReply(view).text;
  const replyId = await adapter.send(chatId, {
    text: shown,
    ...(options.replyTo ? { replyTo: options.replyTo } : {}),
  });

  let timer: NodeJS.Timeout | undefined;
  let edits = Promise.resolve();
  const flush = async () => {
    const message = renderReply(view);
    if (message.text === shown) return;
    shown = message.text;
    await adapter.update(chatId, replyId, message);
  };
  const enqueue = () => {
    edits = edits.then(flush).catch((error: unknown) => options.log(`reply edit failed: ${String(error)}`));
  };
  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      enqueue();
    }, options.editIntervalMs);
  };

  const onInteraction = async (interaction: InteractionRecord) => {
    if (cards.has(interaction.id)) return;
    const current = (await runtime.store.getInteraction(interaction.id)) ?? interaction;
    const messageId = await adapter.send(chatId, renderInteraction(current, current.answer));
    cards.set(interaction.id, { chatId, messageId, interaction: current, answered: current.answer !== null });
  };

  const onAnswered = async (interactionId: string, answer: Record<string, unknown>) => {
    const card = cards.get(interactionId);
    if (!card || card.answered) return;
    card.answered = true;
    await adapter.update(card.chatId, card.messageId, renderInteraction(card.interaction, answer));
  };

  /** Applies one event to the view; true when the reply is finished. */
  const apply = async (record: JournalRecord): Promise<boolean> => {
    switch (record.type) {
      case 'agent.message':
        view.text = view.text ? `${view.text}\n\n${record.data.text}` : record.data.text;
        return false;
      case 'agent.tool_call':
        view.tool = record.data.detail;
        return false;
      case 'agent.tool_result':
        view.tool = null;
        return false;
      case 'interaction.requested':
        view.status = 'waiting';
        await onInteraction(record.data.interaction);
        return false;
      case 'interaction.answered':
        view.status = 'working';
        await onAnswered(record.data.interactionId, record.data.answer);
        return false;
      case 'agent.turn.completed':
        if (!record.data.inputIds.includes(inputId)) return false;
        view.status = record.data.isError ? 'failed' : 'done';
        if (record.data.isError) view.detail = record.data.subtype;
        view.costUsd = record.data.costUsd;
        return true;
      case 'execution.failed':
        view.status = 'failed';
        view.detail = record.data.error.code;
        return true;
      case 'execution.stopped':
        view.status = 'stopped';
        return true;
      case 'session.archived':
        view.status = 'stopped';
        view.detail = 'session archived';
        return true;
      default:
        return false;
    }
  };

  let finished = false;
  try {
    for await (const record of runtime.events(sessionId, {
      after: cursor,
      follow: true,
      signal: options.signal,
    })) {
      finished = await apply(record);
      if (finished) break;
      schedule();
    }
  } finally {
    clearTimeout(timer);
    timer = undefined;
    await edits;
    if (finished) await flush();
  }
}
