/**
 * What a chat platform must offer a bridge: messages in, messages out (sent, then updated in
 * place as a turn streams), buttons that come back as actions, and who a user is to agentd. An
 * adapter translates and nothing more: routing, commands and permission checks are the runtime's.
 */

/** A person on the platform. */
export interface ChatUser {
  /** The platform's stable user id. */
  id: string;
  /** A display name, for replies only; never used for permissions. */
  name?: string;
}

/** A text message someone wrote in a chat. */
export interface IncomingMessage {
  /** The chat (group or direct) it was written in. */
  chatId: string;
  /** The platform's id of the message, unique within the chat: a redelivery carries the same one. */
  messageId: string;
  user: ChatUser;
  text: string;
}

/** A button under a message; `data` comes back in the `ActionPress`. */
export interface ChatButton {
  label: string;
  data: string;
}

/** What the bridge shows: text, and rows of buttons (none removes them). */
export interface OutgoingMessage {
  text: string;
  buttons?: ChatButton[][];
  /** The platform id of the message this one answers. */
  replyTo?: string;
}

/** Someone pressed a button. */
export interface ActionPress {
  chatId: string;
  /** The message the button is under. */
  messageId: string;
  user: ChatUser;
  data: string;
  /** The platform's id of this press, to acknowledge it. */
  pressId: string;
}

export interface ChatHandlers {
  message(message: IncomingMessage): Promise<void>;
  action(press: ActionPress): Promise<void>;
}

export interface ChatAdapter {
  /** The channel key prefix and message id prefix: `telegram`, `feishu`. */
  readonly platform: string;
  /**
   * The endpoint the platform posts events to, when it pushes them (served by `agentd serve`
   * under `/bridges/`); none when the adapter pulls them (long polling, a long connection).
   */
  readonly webhook?: { path: string; handle: (request: Request) => Promise<Response> };
  /** Starts receiving; resolves once the platform answers, rejects when it cannot be reached. */
  start(handlers: ChatHandlers): Promise<void>;
  stop(): Promise<void>;
  /** Sends a message and returns its platform id. */
  send(chatId: string, message: OutgoingMessage): Promise<string>;
  /** Replaces a sent message's text and buttons. */
  update(chatId: string, messageId: string, message: OutgoingMessage): Promise<void>;
  /** Tells the presser their press was taken (or why not, in `notice`). */
  acknowledge(press: ActionPress, notice?: string): Promise<void>;
  /** The agentd principal a platform user acts as: `telegram:<user id>`. */
  principalOf(user: ChatUser): string;
}
