import { Bot, type Context, GrammyError, webhookCallback } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { ActionPress, ChatAdapter, ChatHandlers, ChatUser, OutgoingMessage } from '../chat-adapter.js';

export interface TelegramAdapterOptions {
  /** The bot token (from the environment variable the config names; never stored). */
  token: string;
  /** Another Bot API server (a local one, or a test's). @default 'https://api.telegram.org' */
  apiRoot?: string;
  /** Seconds a long poll waits for updates. @default 30 */
  pollTimeoutSeconds?: number;
  /**
   * Receive updates by webhook instead of long polling: `setWebhook` points Telegram at
   * `<publicUrl>/bridges/telegram/webhook`, and only requests with the secret token are taken.
   * @default long polling
   */
  webhook?: { publicUrl: string; secretToken: string };
  /** @default none */
  log?: (line: string) => void;
}

function keyboard(message: OutgoingMessage): { reply_markup?: InlineKeyboardMarkup } {
  if (message.buttons === undefined) return {};
  return {
    reply_markup: {
      inline_keyboard: message.buttons.map((row) =>
        row.map((button) => ({ text: button.label, callback_data: button.data })),
      ),
    },
  };
}

/** `/status@my_bot` in a group is `/status` to agentd: the suffix only picks the bot. */
function withoutBotName(text: string, username: string | undefined): string {
  if (!username) return text;
  const match = /^(\s*\/[A-Za-z0-9_]+)@([A-Za-z0-9_]+)/.exec(text);
  if (!match || match[2]?.toLowerCase() !== username.toLowerCase()) return text;
  return `${match[1]}${text.slice(match[0].length)}`;
}

function userOf(from: { id: number; first_name?: string; username?: string }): ChatUser {
  const name = from.username ?? from.first_name;
  return { id: String(from.id), ...(name ? { name } : {}) };
}

export const telegramWebhookPath = '/bridges/telegram/webhook';

/**
 * Telegram on grammY, by long polling or by webhook (grammY's `webhookCallback`). Streaming is
 * editing the reply; approvals are inline keyboards.
 */
export class TelegramAdapter implements ChatAdapter {
  readonly platform = 'telegram';
  readonly webhook?: { path: string; handle: (request: Request) => Promise<Response> };
  private readonly bot: Bot;
  private readonly options: TelegramAdapterOptions;
  private readonly pollTimeoutSeconds: number;
  private readonly log: (line: string) => void;
  private handlers: ChatHandlers | undefined;
  private polling: Promise<void> | undefined;

  constructor(options: TelegramAdapterOptions) {
    this.options = options;
    this.bot = new Bot(options.token, options.apiRoot ? { client: { apiRoot: options.apiRoot } } : {});
    this.pollTimeoutSeconds = options.pollTimeoutSeconds ?? 30;
    this.log = options.log ?? (() => {});
    this.listen();
    if (options.webhook) {
      const callback = webhookCallback(this.bot, 'std/http', { secretToken: options.webhook.secretToken });
      this.webhook = {
        path: telegramWebhookPath,
        handle: async (request) => {
          if (!this.handlers)
            return Response.json(
              { error: { code: 'unavailable', message: 'the bridge is starting' } },
              { status: 503 },
            );
          return callback(request);
        },
      };
    }
  }

  /** Handlers are registered once; a start that failed and is tried again adds none. */
  private listen(): void {
    this.bot.on('message:text', (context: Context) => {
      const message = context.message;
      const handlers = this.handlers;
      if (!message?.text || !message.from || !handlers) return;
      // Not awaited: grammY handles updates one at a time, and a reply streams for minutes.
      void handlers
        .message({
          chatId: String(message.chat.id),
          messageId: String(message.message_id),
          user: userOf(message.from),
          text: withoutBotName(message.text, this.bot.botInfo.username),
        })
        .catch((error: unknown) => this.log(`telegram message failed: ${String(error)}`));
    });
    this.bot.on('callback_query:data', (context: Context) => {
      const query = context.callbackQuery;
      const message = query?.message;
      const handlers = this.handlers;
      if (!query?.data || !message || !handlers) return;
      void handlers
        .action({
          chatId: String(message.chat.id),
          messageId: String(message.message_id),
          user: userOf(query.from),
          data: query.data,
          pressId: query.id,
        })
        .catch((error: unknown) => this.log(`telegram action failed: ${String(error)}`));
    });
    this.bot.catch((error) => this.log(`telegram update failed: ${String(error.error)}`));
  }

  async start(handlers: ChatHandlers): Promise<void> {
    // One getMe, not `bot.init()`: that retries a network error for ever, and the bridge has to
    // know the platform is unreachable to say so and pace its own attempts.
    if (!this.bot.isInited()) this.bot.botInfo = await this.bot.api.getMe();
    if (this.options.webhook) {
      await this.bot.api.setWebhook(
        `${this.options.webhook.publicUrl.replace(/\/+$/, '')}${telegramWebhookPath}`,
        {
          secret_token: this.options.webhook.secretToken,
        },
      );
      this.handlers = handlers;
      return;
    }
    this.handlers = handlers;
    await new Promise<void>((resolve, reject) => {
      this.polling = this.bot
        .start({ timeout: this.pollTimeoutSeconds, onStart: () => resolve() })
        .catch((error: unknown) => {
          reject(error);
          this.log(`telegram polling stopped: ${String(error)}`);
        });
    });
  }

  async stop(): Promise<void> {
    this.handlers = undefined;
    if (this.bot.isRunning()) await this.bot.stop();
    await this.polling;
  }

  async send(chatId: string, message: OutgoingMessage): Promise<string> {
    const sent = await this.bot.api.sendMessage(chatId, message.text, {
      ...keyboard(message),
      ...(message.replyTo
        ? { reply_parameters: { message_id: Number(message.replyTo), allow_sending_without_reply: true } }
        : {}),
    });
    return String(sent.message_id);
  }

  async update(chatId: string, messageId: string, message: OutgoingMessage): Promise<void> {
    try {
      await this.bot.api.editMessageText(chatId, Number(messageId), message.text, keyboard(message));
    } catch (error) {
      // The same text again is not a failure.
      if (error instanceof GrammyError && error.description.includes('message is not modified')) return;
      throw error;
    }
  }

  async acknowledge(press: ActionPress, notice?: string): Promise<void> {
    await this.bot.api.answerCallbackQuery(press.pressId, notice ? { text: notice, show_alert: true } : {});
  }

  principalOf(user: ChatUser): string {
    return `telegram:${user.id}`;
  }
}
