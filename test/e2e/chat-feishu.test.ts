/**
 * The Feishu bridge end to end: the real `@larksuiteoapi/node-sdk` against a fake Open Platform
 * on 127.0.0.1, which delivers events and card callbacks to the bridge's webhook encrypted and
 * signed as Feishu does; the runtime's channels with real detached workers running the real SDK
 * and `claude` against the scripted model. Each chat is its own channel.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatBridge } from '../../src/bridges/chat-bridge.js';
import { FeishuAdapter } from '../../src/bridges/feishu/feishu-adapter.js';
import {
  type FakeFeishu,
  type FakeFeishuMessage,
  startFakeFeishu,
} from '../../src/bridges/testing/fake-feishu.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { toolResults } from '../../src/testing/index.js';
import { createHarness, type Harness, lastUserText, waitFor } from './helpers.js';

const alice = 'ou_alice'; // may send and approve
const bob = 'ou_bob'; // may send, may not approve

const madeFile = 'made-in-feishu.txt';

let h: Harness;
let feishu: FakeFeishu;
let runtime: Runtime;
let bridge: ChatBridge;
let webhookServer: ServerType;
const logs: string[] = [];

beforeAll(async () => {
  h = await createHarness({
    script: (request) => {
      const conversation = JSON.stringify(request.body?.messages ?? []);
      if (conversation.includes('approved-run-output')) return { text: 'the command ran' };
      const text = lastUserText(request).trim().split('\n').at(-1) ?? '';
      if (text.includes('run it'))
        return {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: `touch ${madeFile} && echo approved-run-output`, description: 'make a file' },
            },
          ],
        };
      return { text: `echo: ${text}` };
    },
    env: { AGENTD_IDLE_TIMEOUT_MS: '120000' },
  });
  runtime = await createRuntime({ dataDir: h.dataDir, env: { ...h.env, CLAUDE_CWD: h.cwd } });
  for (const user of [alice, bob])
    await runtime.grants.add({
      principal: `feishu:${user}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
  await runtime.grants.add({
    principal: `feishu:${alice}`,
    action: 'role.trigger',
    resource: 'role:default/*',
  });
  feishu = await startFakeFeishu();
  const adapter = new FeishuAdapter({
    appId: feishu.appId,
    appSecret: feishu.appSecret,
    domain: feishu.domain,
    verificationToken: feishu.verificationToken,
    encryptKey: feishu.encryptKey,
    log: (line) => logs.push(line),
  });
  const webhook = adapter.webhook!;
  webhookServer = await new Promise<ServerType>((resolve) => {
    const server = serve(
      { fetch: (request) => webhook.handle(request), port: 0, hostname: '127.0.0.1' },
      () => resolve(server),
    );
  });
  feishu.requestUrl = `http://127.0.0.1:${(webhookServer.address() as AddressInfo).port}${webhook.path}`;
  bridge = new ChatBridge({ runtime, adapter, editIntervalMs: 50, log: (line) => logs.push(line) });
  await bridge.start();
});

afterAll(async () => {
  if (logs.length > 0) console.log(logs.join('\n'));
  await bridge?.stop();
  await new Promise<void>((resolve) => (webhookServer ? webhookServer.close(() => resolve()) : resolve()));
  await feishu?.close();
  await runtime?.close();
  await h?.cleanup();
});

function botMessage(chat: string, match: (message: FakeFeishuMessage) => boolean, what: string) {
  return waitFor(() => feishu.messages(chat).find(match), { what, timeoutMs: 45_000 }).catch(
    (error: unknown) => {
      const shown = feishu.messages(chat).map((message) => JSON.stringify(message.card.text));
      throw new Error(`${(error as Error).message}; the chat has ${shown.join(', ') || 'nothing'}`);
    },
  );
}

async function channelSession(chat: string) {
  return (await runtime.channels.get(`feishu:${chat}`)).session!;
}

describe('feishu bridge', () => {
  it('a message in: a card is sent at once and patched in place as the turn streams, to the answer and cost', async () => {
    const chat = 'oc_chat_1';
    const { messageId, delivery } = await feishu.userMessage({
      chatId: chat,
      openId: alice,
      text: 'hello there',
    });
    expect(delivery.status).toBe(200);
    const reply = await botMessage(
      chat,
      (message) => message.card.text.includes('✓ done'),
      'the finished card',
    );

    expect(feishu.messages(chat)).toHaveLength(1);
    expect(reply.replyTo).toBe(messageId);
    expect(reply.card.shared).toBe(true);
    expect(reply.patches.length).toBeGreaterThanOrEqual(1);
    expect(reply.card.text).toMatch(/^echo: hello there\n\n✓ done · \$\d+\.\d{4}$/);
    const firstSend = feishu.calls.find(
      (call) => call.path === `/open-apis/im/v1/messages/${messageId}/reply`,
    );
    expect(JSON.parse(String(firstSend?.body.content)).elements[0].text.content).toBe('… working');
    const session = await channelSession(chat);
    const input = await runtime.getInput(session.id, `feishu:${chat}:${messageId}`);
    expect(input?.text).toBe('hello there');
    // The tenant token was fetched with the app secret; the secret went nowhere else.
    expect(logs.join('\n')).not.toContain(feishu.appSecret);
  });

  it('an event delivered twice runs once', async () => {
    const chat = 'oc_chat_2';
    const first = await feishu.userMessage({ chatId: chat, openId: alice, text: 'only once please' });
    await botMessage(chat, (message) => message.card.text.includes('✓ done'), 'the first reply');
    expect((await feishu.redeliver(first.eventId)).status).toBe(200);
    await feishu.userMessage({ chatId: chat, openId: alice, text: '/help' });
    await botMessage(chat, (message) => message.card.text.startsWith('Commands'), 'the /help reply');

    const session = await channelSession(chat);
    const inputs = await runtime.listInputs(session.id);
    expect(inputs.map((input) => input.messageId)).toEqual([`feishu:${chat}:${first.messageId}`]);
    const asked = h.model
      .conversationRequests()
      .filter((request) => lastUserText(request).includes('only once please'));
    expect(asked).toHaveLength(1);
    expect(
      feishu.messages(chat).filter((message) => message.card.text.includes('only once please')),
    ).toHaveLength(1);
  });

  it('an unknown command gets a clear reply and reaches no agent', async () => {
    const chat = 'oc_chat_3';
    const before = h.model.conversationRequests().length;
    const { messageId } = await feishu.userMessage({ chatId: chat, openId: alice, text: '/frobnicate now' });
    const reply = await botMessage(chat, (message) => message.replyTo === messageId, 'the refusal');

    expect(reply.card.text).toContain('unknown_command: unknown command /frobnicate');
    expect((await runtime.channels.get(`feishu:${chat}`)).session).toBeNull();
    expect(h.model.conversationRequests().length).toBe(before);
  });

  it('an approval pressed in chat: a forbidden approver gets a toast and changes nothing, a granted one runs the tool, a second press conflicts', async () => {
    const chat = 'oc_chat_4';
    await feishu.userMessage({ chatId: chat, openId: bob, text: 'run it now' });
    const card = await botMessage(chat, (message) => message.card.buttons.length > 0, 'the approval card');
    expect(card.card.text).toContain(`Bash wants to run:\ntouch ${madeFile} && echo approved-run-output`);
    expect(existsSync(join(h.cwd, madeFile))).toBe(false);
    const [approve, deny] = card.card.buttons;
    expect([approve?.label, deny?.label]).toEqual(['Approve', 'Deny']);
    const session = await channelSession(chat);
    const [pending] = await runtime.interactions({ sessionId: session.id, state: 'pending' });
    expect(approve?.value).toEqual({ agentd: `ok:${pending!.id}` });

    const refused = await feishu.press({ openId: bob, messageId: card.messageId, value: approve!.value });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      toast: {
        type: 'error',
        content: expect.stringContaining(
          'forbidden: feishu:ou_bob may not role.trigger on role:default/default',
        ),
      },
    });
    expect((await runtime.store.getInteraction(pending!.id))?.state).toBe('pending');
    expect(card.card.buttons).toHaveLength(2);

    const pressed = await feishu.press({ openId: alice, messageId: card.messageId, value: approve!.value });
    expect(pressed).toEqual({ status: 200, body: {} });
    const reply = await botMessage(
      chat,
      (message) => message.card.text.includes('✓ done'),
      'the finished reply',
    );
    expect(reply.card.text).toContain('the command ran');
    expect(existsSync(join(h.cwd, madeFile))).toBe(true);
    expect(card.card.text).toContain('✓ approved by feishu:ou_alice');
    expect(card.card.buttons).toEqual([]);
    expect((await runtime.store.getInteraction(pending!.id))?.answer).toEqual({ decision: 'approve' });
    const last = h.model.conversationRequests().at(-1)!;
    expect(toolResults(last)).toEqual([
      {
        toolUseId: pending!.toolUseId,
        content: expect.stringContaining('approved-run-output'),
        isError: false,
      },
    ]);

    const again = await feishu.press({ openId: alice, messageId: card.messageId, value: deny!.value });
    expect(again.body).toEqual({ toast: { type: 'error', content: expect.stringContaining('conflict') } });
    expect((await runtime.store.getInteraction(pending!.id))?.answer).toEqual({ decision: 'approve' });
  });

  it('the webhook is verified: the URL check is answered, unsigned or mistokened bodies are refused and change nothing', async () => {
    expect(await feishu.verifyUrl()).toEqual({ status: 200, body: { challenge: 'fake-challenge-42' } });

    const forged = JSON.stringify({
      schema: '2.0',
      header: { event_id: 'ev_forged', token: feishu.verificationToken, event_type: 'im.message.receive_v1' },
      event: {},
    });
    const unsigned = await feishu.deliverRaw(forged);
    expect(unsigned).toEqual({
      status: 401,
      body: { error: { code: 'invalid_signature', message: 'the X-Lark-Signature does not match' } },
    });
    const wrongSignature = await feishu.deliverRaw(forged, {
      'x-lark-request-timestamp': '1',
      'x-lark-request-nonce': 'n',
      'x-lark-signature': 'deadbeef',
    });
    expect(wrongSignature.status).toBe(401);
    expect((await feishu.deliverRaw('{not json')).body).toEqual({
      error: { code: 'invalid_json', message: 'the body is not JSON' },
    });

    // Signed with the right key, but for another app (its verification token differs).
    const other = await startFakeFeishu({ verificationToken: 'someone-elses-token' });
    try {
      other.requestUrl = feishu.requestUrl;
      const before = (await runtime.channels.list()).length;
      const delivery = await other.userMessage({
        chatId: 'oc_chat_5',
        openId: alice,
        text: 'from elsewhere',
      });
      expect(delivery.delivery).toEqual({
        status: 401,
        body: { error: { code: 'invalid_token', message: 'the verification token does not match' } },
      });
      expect((await runtime.channels.list()).length).toBe(before);
    } finally {
      await other.close();
    }
  });
});
