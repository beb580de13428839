import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message the bot sent, with every text it was edited to. */
export interface FakeTelegramMessage {
  chatId: string;
  messageId: number;
  text: string;
  /** Texts after each edit, in order (the first text excluded). */
  edits: string[];
  /** The inline keyboard now shown: rows of `{ text, callback_data }`. */
  keyboard: Array<Array<{ text: string; callback_data: string }>>;
  replyTo: number | null;
}

export interface FakeTelegramCall {
  method: string;
  body: Record<string, unknown>;
}

export interface FakeTelegram {
  /** The Bot API root to give grammY (`client.apiRoot`). */
  readonly apiRoot: string;
  readonly token: string;
  /** Every Bot API call, in order. */
  readonly calls: FakeTelegramCall[];
  /** Queues a text message from a user; returns its update id and message id. */
  userMessage(options: { chatId: number; userId: number; text: string; messageId?: number }): {
    updateId: number;
    messageId: number;
  };
  /** Queues a press of an inline button under a bot message; returns the callback query id. */
  press(options: { chatId: number; userId: number; messageId: number; data: string }): string;
  /** Queues an update again (a platform redelivery), under a new update id. */
  redeliver(updateId: number): void;
  /** The bot's messages in a chat, in the order sent. */
  messages(chatId: number): FakeTelegramMessage[];
  /** Answers given to button presses, by callback query id. */
  callbackAnswers(): Map<string, { text?: string; showAlert: boolean }>;
  /** The webhook set by `setWebhook`, if any: updates are then posted to it, not polled. */
  webhook(): { url: string; secretToken: string | undefined } | null;
  /** The HTTP status of each webhook delivery, by update id. */
  readonly deliveries: Map<number, number>;
  /** Posts an update to the webhook with another secret token (or none), as a forger would; the status. */
  forgeDelivery(secretToken: string | undefined): Promise<number>;
  close(): Promise<void>;
}

const botUser = { id: 900_001, is_bot: true, first_name: 'agentd', username: 'agentd_test_bot' };

function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * A Telegram Bot API server for tests, on 127.0.0.1: getMe, deleteWebhook, getUpdates (long
 * polling with offsets: an update stays until a later offset confirms it, as Telegram does),
 * sendMessage, editMessageText (refusing an edit that changes nothing, as Telegram does) and
 * answerCallbackQuery. The real grammY talks to it through `client.apiRoot`.
 */
export async function startFakeTelegram(
  options: { token?: string; port?: number } = {},
): Promise<FakeTelegram> {
  const token = options.token ?? '123456:fake-telegram-token';
  const calls: FakeTelegramCall[] = [];
  const updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  /** Every update ever queued, by id, without its id: what a redelivery sends again. */
  const allUpdates = new Map<number, Record<string, unknown>>();
  const sent = new Map<string, FakeTelegramMessage[]>();
  const answers = new Map<string, { text?: string; showAlert: boolean }>();
  let waiters: Array<() => void> = [];
  let nextUpdate = 1;
  let nextMessage = 5000;
  let nextCallback = 1;
  let closed = false;
  let webhook: { url: string; secretToken: string | undefined } | null = null;
  const deliveries = new Map<number, number>();

  /** Telegram posts each update to the webhook, and posts it again while the answer is not 2xx. */
  const deliver = async (
    update: Record<string, unknown>,
    secretToken: string | undefined,
  ): Promise<number> => {
    if (!webhook) return 0;
    for (let attempt = 0; attempt < 20 && !closed; attempt++) {
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secretToken !== undefined ? { 'x-telegram-bot-api-secret-token': secretToken } : {}),
        },
        body: JSON.stringify(update),
      }).catch(() => null);
      await response?.text();
      const status = response?.status ?? 0;
      if ((status >= 200 && status < 300) || status === 401 || status === 403) return status;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return 0;
  };

  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const each of woken) each();
  };
  const push = (update: Record<string, unknown>): number => {
    const updateId = nextUpdate++;
    allUpdates.set(updateId, update);
    if (webhook) {
      void deliver({ ...update, update_id: updateId }, webhook.secretToken).then((status) =>
        deliveries.set(updateId, status),
      );
      return updateId;
    }
    updates.push({ ...update, update_id: updateId });
    wake();
    return updateId;
  };
  const chatOf = (chatId: number) => ({ id: chatId, type: chatId < 0 ? 'group' : 'private', title: 'team' });
  const find = (chatId: string, messageId: number) =>
    sent.get(chatId)?.find((message) => message.messageId === messageId);
  const asMessage = (message: FakeTelegramMessage) => ({
    message_id: message.messageId,
    date: Math.floor(Date.now() / 1000),
    chat: chatOf(Number(message.chatId)),
    from: botUser,
    text: message.text,
    ...(message.keyboard.length ? { reply_markup: { inline_keyboard: message.keyboard } } : {}),
  });

  const methods: Record<string, (body: Record<string, unknown>) => Promise<unknown> | unknown> = {
    getMe: () => botUser,
    deleteWebhook: () => {
      webhook = null;
      return true;
    },
    setWebhook: (body) => {
      webhook = {
        url: String(body.url),
        secretToken: typeof body.secret_token === 'string' ? body.secret_token : undefined,
      };
      return true;
    },
    getUpdates: async (body) => {
      if (webhook)
        throw Object.assign(new Error("Conflict: can't use getUpdates method while webhook is active"), {
          status: 409,
        });
      const offset = Number(body.offset ?? 0);
      // An offset confirms every update before it, for good.
      while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
      const timeoutMs = Math.min(Number(body.timeout ?? 0), 30) * 1000;
      if (updates.length === 0 && timeoutMs > 0 && !closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return updates.slice(0, Number(body.limit ?? 100));
    },
    sendMessage: (body) => {
      const chatId = String(body.chat_id);
      const markup = body.reply_markup as { inline_keyboard?: FakeTelegramMessage['keyboard'] } | undefined;
      const reply = body.reply_parameters as { message_id?: number } | undefined;
      const message: FakeTelegramMessage = {
        chatId,
        messageId: nextMessage++,
        text: String(body.text),
        edits: [],
        keyboard: markup?.inline_keyboard ?? [],
        replyTo: reply?.message_id ?? null,
      };
      sent.set(chatId, [...(sent.get(chatId) ?? []), message]);
      return asMessage(message);
    },
    editMessageText: (body) => {
      const message = find(String(body.chat_id), Number(body.message_id));
      if (!message) throw Object.assign(new Error('Bad Request: message to edit not found'), { status: 400 });
      const markup = body.reply_markup as { inline_keyboard?: FakeTelegramMessage['keyboard'] } | undefined;
      const keyboard = markup?.inline_keyboard ?? [];
      if (String(body.text) === message.text && JSON.stringify(keyboard) === JSON.stringify(message.keyboard))
        throw Object.assign(
          new Error(
            'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          ),
          { status: 400 },
        );
      message.text = String(body.text);
      message.keyboard = keyboard;
      message.edits.push(message.text);
      return asMessage(message);
    },
    answerCallbackQuery: (body) => {
      answers.set(String(body.callback_query_id), {
        ...(typeof body.text === 'string' ? { text: body.text } : {}),
        showAlert: body.show_alert === true,
      });
      return true;
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url?.split('?')[0] ?? '');
    const reply = (status: number, payload: unknown) => {
      if (response.writableEnded || response.destroyed) return;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (!match || match[1] !== token) {
      reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      return;
    }
    const method = methods[match[2]!];
    if (!method) {
      reply(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      return;
    }
    try {
      const body = await readBody(request);
      calls.push({ method: match[2]!, body });
      reply(200, { ok: true, result: await method(body) });
    } catch (error) {
      const status = (error as { status?: number }).status ?? 500;
      reply(status, { ok: false, error_code: status, description: (error as Error).message });
    }
  };

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    calls,
    userMessage({ chatId, userId, text, messageId }) {
      const id = messageId ?? nextMessage++;
      const updateId = push({
        message: {
          message_id: id,
          date: Math.floor(Date.now() / 1000),
          chat: chatOf(chatId),
          from: { id: userId, is_bot: false, first_name: `user${userId}` },
          text,
          ...(text.startsWith('/')
            ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] }
            : {}),
        },
      });
      return { updateId, messageId: id };
    },
    press({ chatId, userId, messageId, data }) {
      const id = `cb-${nextCallback++}`;
      const message = find(String(chatId), messageId);
      push({
        callback_query: {
          id,
          from: { id: userId, is_bot: false, first_name: `user${userId}` },
          chat_instance: `instance-${chatId}`,
          data,
          message: message ? asMessage(message) : { message_id: messageId, date: 0, chat: chatOf(chatId) },
        },
      });
      return id;
    },
    redeliver(updateId) {
      const original = allUpdates.get(updateId);
      if (original) push(original);
    },
    messages: (chatId) => sent.get(String(chatId)) ?? [],
    callbackAnswers: () => answers,
    webhook: () => webhook,
    deliveries,
    forgeDelivery: (secretToken) =>
      deliver(
        { update_id: nextUpdate++, message: { message_id: 1, date: 0, chat: chatOf(1), text: 'forged' } },
        secretToken,
      ),
    async close() {
      closed = true;
      wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
