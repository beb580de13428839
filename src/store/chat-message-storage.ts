/**
 * Where a chat bridge shows things: the platform message of each reply (one per input) and of each
 * interaction's card, so that a restarted bridge edits the same message instead of posting a new
 * one, and finishes a reply whose turn ended while it was down (decision 0102).
 *
 * All times are epoch milliseconds.
 */

/** `reply`: the streamed answer to an input (`ref` is the input id); `card`: an interaction's card. */
export type ChatMessageKind = 'reply' | 'card';

export interface ChatMessageRecord {
  sessionId: string;
  kind: ChatMessageKind;
  /** The input id (reply) or interaction id (card). */
  ref: string;
  /** The channel it is shown in (`feishu:oc_…`, `telegram:-100…`). */
  channelKey: string;
  /** The platform's id of the message. */
  messageId: string;
  /** For a reply, the journal cursor of its input's `input.accepted`: the reply is read from there. */
  cursor: number;
  /** Set once the message shows its final state (the turn's end, the interaction's answer). */
  done: boolean;
  updatedAt: number;
}

export interface ChatMessageStorage {
  /** Records where a reply or card is shown, or updates it (same session, kind and ref). */
  saveChatMessage(
    message: Omit<ChatMessageRecord, 'updatedAt'> & { now: number },
  ): Promise<ChatMessageRecord>;
  getChatMessage(key: {
    sessionId: string;
    kind: ChatMessageKind;
    ref: string;
  }): Promise<ChatMessageRecord | null>;
  /** Messages not done yet in channels whose key starts with `channelPrefix`, oldest first. */
  listOpenChatMessages(options: { channelPrefix: string }): Promise<ChatMessageRecord[]>;
}
