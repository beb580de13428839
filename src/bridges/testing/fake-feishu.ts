import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A card the bot sent, with every version it was patched to. */
export interface FakeFeishuMessage {
  chatId: string;
  messageId: string;
  /** The card now shown (parsed `content`). */
  card: FakeFeishuCard;
  /** Cards after each patch, in order (the first excluded). */
  patches: FakeFeishuCard[];
  /** The message it replies to, if it was sent as a reply. */
  replyTo: string | null;
}

/** The parts of an interactive card the tests read. */
export interface FakeFeishuCard {
  /** The texts of its `div`/`markdown` elements, joined by newlines. */
  text: string;
  /** Its buttons: label and `value`. */
  buttons: Array<{ label: string; value: Record<string, unknown> }>;
  /** Whether the card may be patched for everyone (`config.update_multi`). */
  shared: boolean;
  raw: Record<string, unknown>;
}

export interface FakeFeishuCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

/** What the bridge's endpoint answered to a delivery. */
export interface FakeFeishuDelivery {
  status: number;
  body: unknown;
}

export interface FakeFeishu {
  /** The Open Platform base URL to give the SDK (`domain`). */
  readonly domain: string;
  readonly appId: string;
  readonly appSecret: string;
  readonly verificationToken: string;
  readonly encryptKey: string;
  /** Where events and card callbacks are delivered (the app's request URL); set by the test. */
  requestUrl: string;
  /** Every Open API call, in order. */
  readonly calls: FakeFeishuCall[];
  /** Delivers `im.message.receive_v1` for a user's text; returns the event id and message id. */
  userMessage(options: {
    chatId: string;
    openId: string;
    text: string;
    chatType?: 'group' | 'p2p';
  }): Promise<{ eventId: string; messageId: string; delivery: FakeFeishuDelivery }>;
  /** Delivers an event again, as Feishu does when an answer is late: same event id, same body. */
  redeliver(eventId: string): Promise<FakeFeishuDelivery>;
  /** Delivers `card.action.trigger`: a user pressed a card's button. The answer carries the toast. */
  press(options: {
    openId: string;
    messageId: string;
    value: Record<string, unknown>;
  }): Promise<FakeFeishuDelivery>;
  /** Sends the request URL check (`url_verification`) and returns the answer. */
  verifyUrl(): Promise<FakeFeishuDelivery>;
  /** Posts a body to the request URL as an attacker would: no signature, or a wrong one. */
  deliverRaw(body: string, headers?: Record<string, string>): Promise<FakeFeishuDelivery>;
  /** The bot's messages in a chat, in the order sent. */
  messages(chatId: string): FakeFeishuMessage[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function textOf(element: Record<string, unknown>): string[] {
  if (element.tag === 'markdown' && typeof element.content === 'string') return [element.content];
  const text = element.text as { content?: unknown } | undefined;
  if (element.tag === 'div' && typeof text?.content === 'string') return [text.content];
  return [];
}

export function parseCard(content: string): FakeFeishuCard {
  const raw = JSON.parse(content) as Record<string, unknown>;
  const elements = (raw.elements ?? (raw.body as { elements?: unknown })?.elements ?? []) as Array<
    Record<string, unknown>
  >;
  const texts: string[] = [];
  const buttons: FakeFeishuCard['buttons'] = [];
  for (const element of elements) {
    texts.push(...textOf(element));
    if (element.tag === 'action')
      for (const action of (element.actions ?? []) as Array<Record<string, unknown>>)
        if (action.tag === 'button')
          buttons.push({
            label: String((action.text as { content?: unknown } | undefined)?.content ?? ''),
            value: (action.value ?? {}) as Record<string, unknown>,
          });
  }
  const config = (raw.config ?? {}) as { update_multi?: unknown };
  return { text: texts.join('\n'), buttons, shared: config.update_multi === true, raw };
}

/** AES-256-CBC with the SHA-256 of the encrypt key and a random IV in front, as Feishu encrypts. */
function encrypt(encryptKey: string, plain: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/**
 * A Feishu Open Platform for tests, on 127.0.0.1: the tenant_access_token endpoint (checking the
 * app secret), `im/v1/messages` create, reply and patch (refusing a call without the token, and
 * a patch of a card that is not shared), and delivery of events and card callbacks to the app's
 * request URL the way Feishu does: the verification token in the v2 header, the body encrypted
 * with the encrypt key and signed in `X-Lark-Signature` (SHA-256 of timestamp, nonce, key, body).
 * The real `@larksuiteoapi/node-sdk` talks to it through `domain`.
 */
export async function startFakeFeishu(
  options: { appId?: string; appSecret?: string; verificationToken?: string; encryptKey?: string } = {},
): Promise<FakeFeishu> {
  const appId = options.appId ?? 'cli_fake_app';
  const appSecret = options.appSecret ?? 'fake-feishu-app-secret';
  const verificationToken = options.verificationToken ?? 'fake-verification-token';
  const encryptKey = options.encryptKey ?? 'fake-encrypt-key';
  const tenantToken = `t-${randomBytes(8).toString('hex')}`;
  const calls: FakeFeishuCall[] = [];
  const sent = new Map<string, FakeFeishuMessage[]>();
  const events = new Map<string, Record<string, unknown>>();
  let nextId = 1;

  const find = (messageId: string) => {
    for (const messages of sent.values()) {
      const found = messages.find((message) => message.messageId === messageId);
      if (found) return found;
    }
    return undefined;
  };
  const chatOf = (messageId: string): string | undefined => {
    const message = find(messageId);
    if (message) return message.chatId;
    for (const event of events.values()) {
      const inner = (event.event as { message?: { message_id?: string; chat_id?: string } }).message;
      if (inner?.message_id === messageId) return inner.chat_id;
    }
    return undefined;
  };

  const fail = (status: number, code: number, msg: string) => Object.assign(new Error(msg), { status, code });

  const createMessage = (chatId: string, body: Record<string, unknown>, replyTo: string | null) => {
    if (body.msg_type !== 'interactive') throw fail(400, 230001, 'this fake takes interactive cards only');
    const message: FakeFeishuMessage = {
      chatId,
      messageId: `om_${nextId++}`,
      card: parseCard(String(body.content)),
      patches: [],
      replyTo,
    };
    sent.set(chatId, [...(sent.get(chatId) ?? []), message]);
    return { message_id: message.messageId, chat_id: chatId, msg_type: 'interactive' };
  };

  const route = (method: string, path: string, body: Record<string, unknown>, search: URLSearchParams) => {
    if (method === 'POST' && path === '/open-apis/auth/v3/tenant_access_token/internal') {
      if (body.app_id !== appId || body.app_secret !== appSecret)
        return { code: 10014, msg: 'app secret invalid' };
      return { code: 0, msg: 'ok', tenant_access_token: tenantToken, expire: 7200 };
    }
    if (method === 'POST' && path === '/open-apis/im/v1/messages') {
      if (search.get('receive_id_type') !== 'chat_id') throw fail(400, 99992402, 'receive_id_type');
      return { code: 0, msg: 'success', data: createMessage(String(body.receive_id), body, null) };
    }
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(path);
    if (method === 'POST' && reply) {
      const chatId = chatOf(reply[1]!);
      if (!chatId) throw fail(400, 230002, 'the message to reply to is not found');
      return { code: 0, msg: 'success', data: createMessage(chatId, body, reply[1]!) };
    }
    const patch = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    if (method === 'PATCH' && patch) {
      const message = find(patch[1]!);
      if (!message) throw fail(400, 230001, 'message not found');
      if (!message.card.shared) throw fail(400, 230099, 'the card is not shared: set config.update_multi');
      message.card = parseCard(String(body.content));
      message.patches.push(message.card);
      return { code: 0, msg: 'success', data: {} };
    }
    throw fail(404, 404, `no such API: ${method} ${path}`);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    try {
      const text = await readBody(request);
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      calls.push({ method: request.method ?? 'GET', path: url.pathname, body });
      if (
        !url.pathname.startsWith('/open-apis/auth/') &&
        request.headers.authorization !== `Bearer ${tenantToken}`
      ) {
        reply(400, { code: 99991663, msg: 'Invalid access token for authorization' });
        return;
      }
      reply(200, route(request.method ?? 'GET', url.pathname, body, url.searchParams));
    } catch (error) {
      const { status = 500, code = 500 } = error as { status?: number; code?: number };
      reply(status, { code, msg: (error as Error).message });
    }
  };

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const post = async (body: string, headers: Record<string, string>): Promise<FakeFeishuDelivery> => {
    if (!fake.requestUrl) throw new Error('fake feishu: set requestUrl first');
    const response = await fetch(fake.requestUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed };
  };
  /** Encrypted and signed, as the platform sends when the app has an encrypt key. */
  const deliver = (payload: Record<string, unknown>) => {
    const body = JSON.stringify({ encrypt: encrypt(encryptKey, JSON.stringify(payload)) });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(8).toString('hex');
    const signature = createHash('sha256')
      .update(timestamp + nonce + encryptKey + body)
      .digest('hex');
    return post(body, {
      'x-lark-request-timestamp': timestamp,
      'x-lark-request-nonce': nonce,
      'x-lark-signature': signature,
    });
  };
  const header = (eventType: string, eventId: string) => ({
    event_id: eventId,
    token: verificationToken,
    create_time: String(Date.now()),
    event_type: eventType,
    tenant_key: 'fake-tenant',
    app_id: appId,
  });

  const fake: FakeFeishu = {
    domain: `http://127.0.0.1:${port}`,
    appId,
    appSecret,
    verificationToken,
    encryptKey,
    requestUrl: '',
    calls,
    async userMessage({ chatId, openId, text, chatType }) {
      const eventId = `ev_${nextId++}`;
      const messageId = `om_user_${nextId++}`;
      const event = {
        schema: '2.0',
        header: header('im.message.receive_v1', eventId),
        event: {
          sender: {
            sender_id: { open_id: openId, union_id: `on_${openId}`, user_id: null },
            sender_type: 'user',
            tenant_key: 'fake-tenant',
          },
          message: {
            message_id: messageId,
            create_time: String(Date.now()),
            chat_id: chatId,
            chat_type: chatType ?? 'group',
            message_type: 'text',
            // In a group the bot is @-mentioned: the text holds the mention's key.
            content: JSON.stringify({ text: chatType === 'p2p' ? text : `@_user_1 ${text}` }),
            mentions:
              chatType === 'p2p'
                ? []
                : [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: 'agentd', tenant_key: 'fake-tenant' }],
          },
        },
      };
      events.set(eventId, event);
      return { eventId, messageId, delivery: await deliver(event) };
    },
    redeliver(eventId) {
      const event = events.get(eventId);
      if (!event) throw new Error(`fake feishu: no event ${eventId}`);
      return deliver(event);
    },
    press({ openId, messageId, value }) {
      const eventId = `ev_${nextId++}`;
      return deliver({
        schema: '2.0',
        header: header('card.action.trigger', eventId),
        event: {
          operator: { tenant_key: 'fake-tenant', open_id: openId, union_id: `on_${openId}` },
          token: `c-${randomBytes(6).toString('hex')}`,
          action: { tag: 'button', value },
          host: 'im_message',
          context: { open_message_id: messageId, open_chat_id: chatOf(messageId) ?? '' },
        },
      });
    },
    verifyUrl() {
      return deliver({ challenge: 'fake-challenge-42', token: verificationToken, type: 'url_verification' });
    },
    deliverRaw: (body, headers = {}) => post(body, headers),
    messages: (chatId) => sent.get(chatId) ?? [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
