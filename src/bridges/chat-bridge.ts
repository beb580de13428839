import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, NotFoundError } from '../errors/index.js';
import type { Answer } from '../runtime/answers.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ActionPress, ChatAdapter, IncomingMessage } from './chat-adapter.js';
import {
  optionLabel,
  parseActionData,
  renderCommand,
  renderError,
  renderInteraction,
} from './chat-render.js';
import { type Card, saveCard, streamReply } from './reply-stream.js';
import { inFlightInputs } from './resume.js';

export interface ChatBridgeOptions {
  runtime: Runtime;
  adapter: ChatAdapter;
  /** Least time between two edits of a streaming reply. @default 1000 */
  editIntervalMs?: number;
  /** Values never to show in a status or a log line (the platform's secrets). @default [] */
  secrets?: readonly string[];
  /** @default none */
  log?: (line: string) => void;
}

/** How a bridge is doing, as `/health` reports it. */
export interface BridgeStatus {
  platform: string;
  /** `retrying`: the platform could not be reached; the bridge tries again after a pause. */
  state: 'starting' | 'connected' | 'retrying' | 'stopped';
  /** Failed attempts to reach the platform since the bridge started. */
  failures: number;
  /** Why the last attempt failed, without secrets. */
  lastError?: string;
  /** When the next attempt is made (ISO 8601). */
  nextAttemptAt?: string;
}

export interface RetryOptions {
  /** The pause after the first failure; it doubles after each one. @default 1000 */
  initialDelayMs?: number;
  /** The longest pause. @default 60000 */
  maxDelayMs?: number;
}

/**
 * One chat platform on agentd's channels. Each chat is the channel `<platform>:<chat id>`; each
 * platform message id is the input's message id, so a redelivery is the same input; commands,
 * roles and permissions are the runtime's. It keeps nothing the store does not have: on start it
 * finds the turns still running in its channels and streams their replies again.
 */
export class ChatBridge {
  private readonly runtime: Runtime;
  private readonly adapter: ChatAdapter;
  private readonly editIntervalMs: number;
  private readonly log: (line: string) => void;
  private readonly secrets: readonly string[];
  private current: BridgeStatus;
  private running: Promise<void> | undefined;
  private readonly closing = new AbortController();
  private readonly cards = new Map<string, Card>();
  /** Replies streaming now, by input id: a redelivered message does not start a second one. */
  private readonly streaming = new Map<string, Promise<void>>();
  /** Per chat, messages are handled in order. */
  private readonly chats = new Map<string, Promise<void>>();

  constructor(options: ChatBridgeOptions) {
    this.runtime = options.runtime;
    this.adapter = options.adapter;
    this.editIntervalMs = options.editIntervalMs ?? 1000;
    this.secrets = (options.secrets ?? []).filter((secret) => secret.length > 0);
    const log = options.log ?? (() => {});
    this.log = (line) => log(this.redact(line));
    this.current = { platform: this.adapter.platform, state: 'starting', failures: 0 };
  }

  /** One attempt: connects to the platform (rejecting if it cannot), then resumes replies. */
  async start(): Promise<void> {
    await this.adapter.start({
      message: (message) => this.inOrder(message.chatId, () => this.onMessage(message)),
      action: (press) => this.onAction(press),
    });
    this.current = { platform: this.adapter.platform, state: 'connected', failures: this.current.failures };
    await this.resume().catch((error: unknown) => this.log(`resuming replies failed: ${String(error)}`));
  }

  /**
   * Starts in the background and keeps trying, with a pause that doubles up to a limit, while the
   * platform cannot be reached: a chat platform that is down never stops `agentd serve`.
   */
  run(options: RetryOptions = {}): void {
    const initial = options.initialDelayMs ?? 1000;
    const max = options.maxDelayMs ?? 60_000;
    this.running ??= (async () => {
      let delay = initial;
      while (!this.closing.signal.aborted) {
        try {
          await this.start();
          return;
        } catch (error) {
          if (this.closing.signal.aborted) return;
          const reason = this.redact(error instanceof Error ? error.message : String(error));
          this.current = {
            platform: this.adapter.platform,
            state: 'retrying',
            failures: this.current.failures + 1,
            lastError: reason,
            nextAttemptAt: new Date(Date.now() + delay).toISOString(),
          };
          this.log(
            `${this.adapter.platform} bridge cannot reach the platform (${reason}); retrying in ${delay} ms`,
          );
          await sleep(delay, undefined, { signal: this.closing.signal }).catch(() => {});
          delay = Math.min(delay * 2, max);
        }
      }
    })();
  }

  status(): BridgeStatus {
    return { ...this.current };
  }

  async stop(): Promise<void> {
    this.closing.abort();
    await this.running;
    await this.adapter.stop();
    await Promise.allSettled([...this.streaming.values()]);
    this.current = { ...this.current, state: 'stopped' };
  }

  private redact(text: string): string {
    let shown = text;
    for (const secret of this.secrets) shown = shown.split(secret).join('***');
    return shown;
  }

  get platform(): string {
    return this.adapter.platform;
  }

  channelKey(chatId: string): string {
    return `${this.adapter.platform}:${chatId}`;
  }

  private inOrder(chatId: string, work: () => Promise<void>): Promise<void> {
    const next = (this.chats.get(chatId) ?? Promise.resolve()).then(work, work);
    this.chats.set(chatId, next);
    return next;
  }

  private async onMessage(message: IncomingMessage): Promise<void> {
    const key = this.channelKey(message.chatId);
    const messageId = `${this.adapter.platform}:${message.chatId}:${message.messageId}`;
    if (await this.journaled(key, messageId)) {
      this.log(`${messageId} was delivered again: already taken`);
      return;
    }
    let result: Awaited<ReturnType<Runtime['channels']['message']>>;
    try {
      result = await this.runtime.channels.message(key, {
        text: message.text,
        messageId,
        actor: this.adapter.principalOf(message.user),
      });
    } catch (error) {
      await this.adapter.send(message.chatId, { ...renderError(error), replyTo: message.messageId });
      return;
    }
    if (result.kind === 'input') {
      this.follow(message.chatId, result.session.id, result.input.id, message.messageId);
      return;
    }
    await this.adapter.send(message.chatId, { ...renderCommand(result), replyTo: message.messageId });
    if (result.command === 'pending')
      for (const interaction of result.interactions) {
        const messageId = await this.adapter.send(message.chatId, renderInteraction(interaction, null));
        this.cards.set(interaction.id, { chatId: message.chatId, messageId, interaction, answered: false });
      }
    if (result.command === 'compact') this.follow(message.chatId, result.input.sessionId, result.input.id);
  }

  /** Whether this platform message is already an input of the channel's current session. */
  private async journaled(key: string, messageId: string): Promise<boolean> {
    const session = await this.runtime.channels.get(key).then(
      (details) => details.session,
      (error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      },
    );
    return session !== null && (await this.runtime.getInput(session.id, messageId)) !== null;
  }

  private follow(chatId: string, sessionId: string, inputId: string, replyTo?: string): void {
    if (this.streaming.has(inputId)) return;
    const done = streamReply({
      runtime: this.runtime,
      adapter: this.adapter,
      chatId,
      channelKey: this.channelKey(chatId),
      sessionId,
      inputId,
      ...(replyTo ? { replyTo } : {}),
      cards: this.cards,
      editIntervalMs: this.editIntervalMs,
      signal: this.closing.signal,
      log: this.log,
    })
      .catch((error: unknown) => this.log(`reply to ${inputId} failed: ${String(error)}`))
      .finally(() => this.streaming.delete(inputId));
    this.streaming.set(inputId, done);
  }

  /** A button: the runtime answers (and checks who may); the card shows the outcome. */
  private async onAction(press: ActionPress): Promise<void> {
    const action = parseActionData(press.data);
    if (!action) {
      await this.adapter.acknowledge(press, 'this button is not one of agentd’s');
      return;
    }
    const interaction = await this.runtime.store.getInteraction(action.interactionId);
    if (!interaction) {
      await this.adapter.acknowledge(press, 'not_found: this approval does not exist');
      return;
    }
    let answer: Answer;
    if (action.kind === 'approve') answer = { decision: 'approve' };
    else if (action.kind === 'deny') answer = { decision: 'deny', reason: 'denied in chat' };
    else {
      const label = optionLabel(interaction, action.option);
      const question = (interaction.request.input as { questions?: Array<{ question?: string }> })
        ?.questions?.[0]?.question;
      if (label === null || !question) {
        await this.adapter.acknowledge(press, 'invalid_input: no such option');
        return;
      }
      answer = { answers: { [question]: label } };
    }
    const actor = this.adapter.principalOf(press.user);
    const card = this.cards.get(interaction.id) ?? {
      chatId: press.chatId,
      messageId: press.messageId,
      interaction,
      answered: false,
    };
    this.cards.set(interaction.id, card);
    try {
      const answered = await this.runtime.answer(interaction.id, answer, { actor });
      card.answered = true;
      await this.adapter.acknowledge(press);
      await this.adapter.update(
        press.chatId,
        press.messageId,
        renderInteraction(answered, answered.answer, actor),
      );
      if (card.messageId === press.messageId)
        await saveCard(this.runtime, this.channelKey(press.chatId), card);
    } catch (error) {
      await this.adapter.acknowledge(press, renderError(error).text);
      if (error instanceof ConflictError) {
        const current = await this.runtime.store.getInteraction(interaction.id);
        card.answered = true;
        if (current)
          await this.adapter.update(
            press.chatId,
            press.messageId,
            renderInteraction(current, current.answer),
          );
      }
    }
  }

  /**
   * After a restart: the replies not finished in this platform's channels are edited to their end
   * (their messages are in the store), and turns still running that never got a reply get one.
   */
  private async resume(): Promise<void> {
    const prefix = `${this.adapter.platform}:`;
    for (const open of await this.runtime.store.listOpenChatMessages({ channelPrefix: prefix }))
      if (open.kind === 'reply') this.follow(open.channelKey.slice(prefix.length), open.sessionId, open.ref);
    for (const channel of await this.runtime.channels.list()) {
      if (!channel.key.startsWith(prefix)) continue;
      const session = (await this.runtime.channels.get(channel.key)).session;
      if (session?.state !== 'active') continue;
      const chatId = channel.key.slice(prefix.length);
      for (const { inputId, messageId } of await inFlightInputs(this.runtime, session.id)) {
        // The reply answers the platform message its input came from (`<platform>:<chat>:<id>`).
        const replyTo = messageId.startsWith(`${channel.key}:`)
          ? messageId.slice(channel.key.length + 1)
          : undefined;
        this.follow(chatId, session.id, inputId, replyTo);
      }
    }
  }
}
