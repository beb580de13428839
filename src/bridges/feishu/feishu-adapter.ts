import * as lark from '@larksuiteoapi/node-sdk';
import type { ActionPress, ChatAdapter, ChatHandlers, ChatUser, OutgoingMessage } from '../chat-adapter.js';
import { maxWebhookBytes, webhookError, webhookJson } from '../webhooks.js';
import { cardOf, textOfMessage } from './feishu-card.js';

export interface FeishuAdapterOptions {
  appId: string;
  /** The app secret (from the environment variable the config names; never stored). */
  appSecret: string;
  /** `feishu`, `lark`, or another Open Platform base URL (a test's). @default 'feishu' */
  domain?: string;
  /**
   * How events come in: `webhook` (Feishu posts them to agentd's `/bridges/feishu/events`) or
   * `websocket` (the SDK's long connection: no public URL needed). @default 'webhook'
   */
  mode?: 'webhook' | 'websocket';
  /** The app's verification token: every webhook request must carry it. Required for `webhook`. */
  verificationToken?: string;
  /** The app's encrypt key: webhook bodies are then encrypted and signed, and unsigned ones refused. */
  encryptKey?: string;
  /** How long a button press waits for the bridge's verdict, to show it as a toast. @default 2500 */
  pressAnswerMs?: number;
  /** @default none */
  log?: (line: string) => void;
}

export const feishuWebhookPath = '/bridges/feishu/events';

interface MessageEvent {
  sender?: { sender_id?: { open_id?: string }; sender_type?: string };
  message?: {
    message_id?: string;
    chat_id?: string;
    message_type?: string;
    content?: string;
    mentions?: Array<{ key?: string }>;
  };
}

interface CardActionEvent {
  event_id?: string;
  operator?: { open_id?: string };
  action?: { value?: { agentd?: unknown } };
  context?: { open_message_id?: string; open_chat_id?: string };
}

/** The SDK's logs carry request bodies (the app secret among them): none of them are passed on. */
const silentLogger = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };

/** A token cache of this adapter's own (the SDK's default is one per process, shared by all clients). */
function ownCache(): lark.Cache {
  const entries = new Map<string | symbol, { value: unknown; expiresAt: number }>();
  const keyOf = (key: string | symbol, namespace?: string) =>
    typeof key === 'symbol' ? `${namespace ?? ''}:${String(key.description)}` : `${namespace ?? ''}:${key}`;
  return {
    set: async (key, value, expire, options) => {
      entries.set(keyOf(key as string | symbol, options?.namespace), {
        value,
        expiresAt: expire ?? Number.POSITIVE_INFINITY,
      });
      return true;
    },
    get: async (key, options) => {
      const entry = entries.get(keyOf(key as string | symbol, options?.namespace));
      return entry && entry.expiresAt > Date.now() ? entry.value : undefined;
    },
  };
}

/** A failed Open API call: the platform's code and message, never the request (it may hold secrets). */
export class FeishuApiError extends Error {
  constructor(
    readonly operation: string,
    readonly platformCode: number | string,
    detail: string,
  ) {
    super(`feishu ${operation} failed: ${platformCode} ${detail}`);
    this.name = 'FeishuApiError';
  }
}

function apiError(operation: string, error: unknown): FeishuApiError {
  const response = (error as { response?: { status?: number; data?: { code?: number; msg?: string } } })
    .response;
  if (response?.data?.code !== undefined)
    return new FeishuApiError(operation, response.data.code, response.data.msg ?? '');
  if (response?.status) return new FeishuApiError(operation, `http ${response.status}`, '');
  const code = (error as { code?: string }).code;
  return new FeishuApiError(
    operation,
    code ?? 'network',
    error instanceof Error ? error.message : String(error),
  );
}

/**
 * Feishu/Lark on the official `@larksuiteoapi/node-sdk`: events come by a verified webhook or the
 * long connection, both through the SDK's EventDispatcher; a reply is an interactive card patched
 * in place as the turn streams; approvals are card buttons whose callbacks
 * (`card.action.trigger`) answer the persisted interaction, with the verdict as a toast.
 */
export class FeishuAdapter implements ChatAdapter {
  readonly platform = 'feishu';
  readonly webhook?: { path: string; handle: (request: Request) => Promise<Response> };
  private readonly client: lark.Client;
  private readonly domain: lark.Domain | string;
  private readonly cipher: lark.AESCipher | undefined;
  private readonly dispatcher: lark.EventDispatcher;
  private readonly options: FeishuAdapterOptions;
  private readonly log: (line: string) => void;
  private handlers: ChatHandlers | undefined;
  private wsClient: lark.WSClient | undefined;
  /** Presses waiting for the bridge's verdict, by press id. */
  private readonly presses = new Map<string, (notice: string | undefined) => void>();

  constructor(options: FeishuAdapterOptions) {
    this.options = options;
    this.log = options.log ?? (() => {});
    const domain =
      options.domain === undefined || options.domain === 'feishu'
        ? lark.Domain.Feishu
        : options.domain === 'lark'
          ? lark.Domain.Lark
          : options.domain.replace(/\/+$/, '');
    this.client = new lark.Client({
      appId: options.appId,
      appSecret: options.appSecret,
      domain,
      cache: ownCache(),
      logger: silentLogger,
      loggerLevel: lark.LoggerLevel.error,
    });
    this.dispatcher = new lark.EventDispatcher({
      ...(options.verificationToken ? { verificationToken: options.verificationToken } : {}),
      ...(options.encryptKey ? { encryptKey: options.encryptKey } : {}),
      logger: silentLogger,
      loggerLevel: lark.LoggerLevel.error,
    }).register({
      'im.message.receive_v1': async (data: MessageEvent) => {
        this.onMessage(data);
        return {};
      },
      'card.action.trigger': (data: CardActionEvent) => this.onPress(data),
    });
    if ((options.mode ?? 'webhook') === 'webhook')
      this.webhook = { path: feishuWebhookPath, handle: (request) => this.onWebhook(request) };
    this.domain = domain;
    this.cipher = options.encryptKey ? new lark.AESCipher(options.encryptKey) : undefined;
  }

  async start(handlers: ChatHandlers): Promise<void> {
    if ((this.options.mode ?? 'webhook') === 'webhook') {
      // The credentials work and the platform answers: a token is the cheapest proof.
      try {
        await this.client.tokenManager.getTenantAccessToken();
      } catch (error) {
        throw apiError('tenant_access_token', error);
      }
      this.handlers = handlers;
      return;
    }
    this.handlers = handlers;
    await new Promise<void>((resolve, reject) => {
      this.wsClient = new lark.WSClient({
        appId: this.options.appId,
        appSecret: this.options.appSecret,
        domain: this.domain,
        logger: silentLogger,
        loggerLevel: lark.LoggerLevel.error,
        autoReconnect: true,
        onReady: () => resolve(),
        onError: (error) => reject(apiError('long connection', error)),
      });
      void this.wsClient.start({ eventDispatcher: this.dispatcher }).catch(reject);
    });
  }

  async stop(): Promise<void> {
    this.handlers = undefined;
    this.wsClient?.close();
    for (const resolve of this.presses.values()) resolve(undefined);
    this.presses.clear();
  }

  async send(chatId: string, message: OutgoingMessage): Promise<string> {
    const data = { msg_type: 'interactive', content: cardOf(message) };
    let response: { code?: number; msg?: string; data?: { message_id?: string } };
    try {
      response = message.replyTo
        ? await this.client.im.message.reply({ path: { message_id: message.replyTo }, data })
        : await this.client.im.message.create({
            params: { receive_id_type: 'chat_id' },
            data: { ...data, receive_id: chatId },
          });
    } catch (error) {
      throw apiError('send', error);
    }
    if (response.code !== 0 || !response.data?.message_id)
      throw new FeishuApiError('send', response.code ?? 'no message id', response.msg ?? '');
    return response.data.message_id;
  }

  async update(_chatId: string, messageId: string, message: OutgoingMessage): Promise<void> {
    let response: { code?: number; msg?: string };
    try {
      response = await this.client.im.message.patch({
        path: { message_id: messageId },
        data: { content: cardOf(message) },
      });
    } catch (error) {
      throw apiError('update', error);
    }
    if (response.code !== 0)
      throw new FeishuApiError('update', response.code ?? 'unknown', response.msg ?? '');
  }

  async acknowledge(press: ActionPress, notice?: string): Promise<void> {
    this.presses.get(press.pressId)?.(notice);
  }

  principalOf(user: ChatUser): string {
    return `feishu:${user.id}`;
  }

  private onMessage(data: MessageEvent): void {
    const message = data.message;
    const openId = data.sender?.sender_id?.open_id;
    if (!this.handlers || !message?.message_id || !message.chat_id || !openId) return;
    if (data.sender?.sender_type !== 'user' || message.message_type !== 'text') return;
    const keys = (message.mentions ?? []).flatMap((mention) => (mention.key ? [mention.key] : []));
    const text = textOfMessage(message.content ?? '', keys);
    if (!text) return;
    // Not awaited: Feishu wants an answer within 3 s, and a reply streams for minutes.
    void this.handlers
      .message({ chatId: message.chat_id, messageId: message.message_id, user: { id: openId }, text })
      .catch((error: unknown) => this.log(`feishu message failed: ${String(error)}`));
  }

  /** A button: the bridge decides; its verdict (or nothing, within the wait) is the toast. */
  private async onPress(data: CardActionEvent): Promise<Record<string, unknown>> {
    const value = data.action?.value?.agentd;
    const chatId = data.context?.open_chat_id;
    const messageId = data.context?.open_message_id;
    const openId = data.operator?.open_id;
    if (!this.handlers || typeof value !== 'string' || !chatId || !messageId || !openId)
      return { toast: { type: 'error', content: 'this button is not one of agentd’s' } };
    const pressId = data.event_id ?? `${messageId}:${Date.now()}`;
    const verdict = new Promise<string | undefined>((resolve) => {
      this.presses.set(pressId, resolve);
      setTimeout(() => resolve(undefined), this.options.pressAnswerMs ?? 2500).unref();
    });
    void this.handlers
      .action({ chatId, messageId, user: { id: openId }, data: value, pressId })
      .catch((error: unknown) => this.log(`feishu action failed: ${String(error)}`));
    const notice = await verdict;
    this.presses.delete(pressId);
    return notice ? { toast: { type: 'error', content: notice } } : {};
  }

  /**
   * One webhook request, checked as the SDK checks it: the signature when there is an encrypt
   * key, and (which the SDK leaves to the app) the verification token the payload carries.
   */
  private async onWebhook(request: Request): Promise<Response> {
    if (request.method !== 'POST') return webhookError(405, 'method_not_allowed', 'POST only');
    const text = await request.text();
    if (Buffer.byteLength(text) > maxWebhookBytes)
      return webhookError(413, 'payload_too_large', `the body is over ${maxWebhookBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return webhookError(400, 'invalid_json', 'the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return webhookError(400, 'invalid_input', 'the body is not a JSON object');
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    // The SDK reads headers from the prototype, so that they are not part of the signed JSON.
    const data = Object.assign(Object.create({ headers }), body) as Record<string, unknown>;
    const handle = this.dispatcher.requestHandle;
    if (!handle) return webhookError(500, 'internal_error', 'no request handle');
    if (this.options.encryptKey && !handle.checkIsEventValidated(data))
      return webhookError(401, 'invalid_signature', 'the X-Lark-Signature does not match');
    if ('encrypt' in data !== (this.cipher !== undefined))
      return webhookError(
        400,
        'invalid_input',
        this.cipher ? 'the event is not encrypted' : 'an encrypted event, but no encrypt key is configured',
      );
    let plain: {
      schema?: unknown;
      header?: { token?: unknown };
      token?: unknown;
      type?: unknown;
      challenge?: unknown;
    };
    try {
      plain = this.cipher
        ? JSON.parse(this.cipher.decrypt(String(data.encrypt ?? '')))
        : (body as typeof plain);
    } catch {
      return webhookError(400, 'invalid_input', 'the body cannot be decrypted with the encrypt key');
    }
    // v2 events carry the token in their header, older ones and the URL check at the top.
    const token = plain.schema ? plain.header?.token : plain.token;
    if (token !== this.options.verificationToken)
      return webhookError(401, 'invalid_token', 'the verification token does not match');
    if (plain.type === 'url_verification') return webhookJson(200, { challenge: plain.challenge });
    if (!this.handlers) return webhookError(503, 'unavailable', 'the bridge is starting');
    const result = await this.dispatcher.invoke(data, { needCheck: false });
    return webhookJson(200, typeof result === 'object' && result !== null ? result : {});
  }
}
