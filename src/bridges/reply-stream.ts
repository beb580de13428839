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

/** Remembers in the store where a card is shown, so that a restarted bridge updates that one. */
export async function saveCard(runtime: Runtime, channelKey: string, card: Card): Promise<void> {
  await runtime.store.saveChatMessage({
    sessionId: card.interaction.sessionId,
    kind: 'card',
    ref: card.interaction.id,
    channelKey,
    messageId: card.messageId,
    cursor: 0,
    done: card.answered,
    now: Date.now(),
  });
}

export interface ReplyStreamOptions {
  runtime: Runtime;
  adapter: ChatAdapter;
  chatId: string;
  /** The channel of the chat (`<platform>:<chat id>`). */
  channelKey: string;
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
 * shows is read from the journal, from the input's own cursor; the store keeps which platform
 * message shows it (and each card), so a bridge that restarts edits the same message to the end.
 */
export async function streamReply(options: ReplyStreamOptions): Promise<void> {
  const { runtime, adapter, chatId, channelKey, sessionId, inputId, cards } = options;
  const saved = await runtime.store.getChatMessage({ sessionId, kind: 'reply', ref: inputId });
  if (saved?.done) return;
  const cursor = saved?.cursor ?? (await acceptedCursor(runtime, sessionId, inputId));
  if (cursor === null) return;
  const view: ReplyView = { text: '', tool: null, status: 'working', costUsd: null };
  const saveReply = (messageId: string, done: boolean) =>
    runtime.store.saveChatMessage({
      sessionId,
      kind: 'reply',
      ref: inputId,
      channelKey,
      messageId,
      cursor,
      done,
      now: Date.now(),
    });
  // A reply shown before a restart is edited from where the journal says, whatever it showed.
  let shown = saved ? '' : renderReply(view).text;
  let replyId: string;
  if (saved) replyId = saved.messageId;
  else {
    replyId = await adapter.send(chatId, {
      text: shown,
      ...(options.replyTo ? { replyTo: options.replyTo } : {}),
    });
    await saveReply(replyId, false);
  }

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
    const known = await runtime.store.getChatMessage({ sessionId, kind: 'card', ref: interaction.id });
    if (known) {
      // Shown before a restart: it is that card that changes when the interaction is answered.
      cards.set(interaction.id, {
        chatId,
        messageId: known.messageId,
        interaction: current,
        answered: known.done,
      });
      return;
    }
    const messageId = await adapter.send(chatId, renderInteraction(current, current.answer));
    const card = { chatId, messageId, interaction: current, answered: current.answer !== null };
    cards.set(interaction.id, card);
    await saveCard(runtime, channelKey, card);
  };

  const onAnswered = async (interactionId: string, answer: Record<string, unknown>) => {
    const card = cards.get(interactionId);
    if (!card || card.answered) return;
    card.answered = true;
    await adapter.update(card.chatId, card.messageId, renderInteraction(card.interaction, answer));
    await saveCard(runtime, channelKey, card);
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
    if (finished) {
      await flush();
      await saveReply(replyId, true);
    }
  }
}
