/**
 * The Telegram bridge end to end: the real grammY against a fake Bot API server on 127.0.0.1,
 * the runtime's channels with real detached workers running the real SDK and `claude` against
 * the scripted model. Each chat is its own channel, so the tests do not share sessions.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatBridge } from '../../src/bridges/chat-bridge.js';
import { TelegramAdapter } from '../../src/bridges/telegram/telegram-adapter.js';
import {
  type FakeTelegram,
  type FakeTelegramMessage,
  startFakeTelegram,
} from '../../src/bridges/testing/fake-telegram.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { toolResults } from '../../src/testing/index.js';
import { createHarness, type Harness, lastUserText, waitFor } from './helpers.js';

const alice = 42; // may send and approve
const bob = 43; // may send, may not approve

/** What the approved tool makes, in the agent's directory. */
const madeFile = 'made-in-chat.txt';

let h: Harness;
let telegram: FakeTelegram;
let runtime: Runtime;
let bridge: ChatBridge;
/** What the bridge logged: shown when a test fails. */
const logs: string[] = [];

beforeAll(async () => {
  h = await createHarness({
    script: (request) => {
      const conversation = JSON.stringify(request.body?.messages ?? []);
      if (conversation.includes('approved-run-output')) return { text: 'the command ran' };
      // The last line: claude puts reminders of its own before the user's text.
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
  // Channel sessions work in the test's own directory, never the checkout.
  runtime = await createRuntime({ dataDir: h.dataDir, env: { ...h.env, CLAUDE_CWD: h.cwd } });
  for (const user of [alice, bob])
    await runtime.grants.add({
      principal: `telegram:${user}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
  await runtime.grants.add({
    principal: `telegram:${alice}`,
    action: 'role.trigger',
    resource: 'role:default/*',
  });
  telegram = await startFakeTelegram();
  bridge = new ChatBridge({
    runtime,
    adapter: new TelegramAdapter({ token: telegram.token, apiRoot: telegram.apiRoot, pollTimeoutSeconds: 1 }),
    editIntervalMs: 50,
    log: (line) => logs.push(line),
  });
  await bridge.start();
});

afterAll(async () => {
  if (logs.length > 0) console.log(logs.join('\n'));
  await bridge?.stop();
  await telegram?.close();
  await runtime?.close();
  await h?.cleanup();
});

/** The bot's message in `chat` that `match` picks, once there is one. */
function botMessage(chat: number, match: (message: FakeTelegramMessage) => boolean, what: string) {
  return waitFor(() => telegram.messages(chat).find(match), { what, timeoutMs: 45_000 }).catch(
    (error: unknown) => {
      const shown = telegram.messages(chat).map((message) => JSON.stringify(message.text));
      throw new Error(`${(error as Error).message}; the chat has ${shown.join(', ') || 'nothing'}`);
    },
  );
}

async function channelSession(chat: number) {
  return (await runtime.channels.get(`telegram:${chat}`)).session!;
}

describe('telegram bridge', () => {
  it('a message in: its reply is sent at once and edited as the turn streams, to the answer and cost', async () => {
    const chat = -1001;
    const { messageId } = telegram.userMessage({ chatId: chat, userId: alice, text: 'hello there' });
    const reply = await botMessage(chat, (message) => message.text.includes('✓ done'), 'the finished reply');

    expect(reply.replyTo).toBe(messageId);
    expect(reply.edits.length).toBeGreaterThanOrEqual(1);
    expect(reply.text).toMatch(/^echo: hello there\n\n✓ done · \$\d+\.\d{4}$/);
    const sendCall = telegram.calls.find(
      (call) =>
        call.method === 'sendMessage' &&
        String(call.body.chat_id) === String(chat) &&
        call.body.text === '… working',
    );
    expect(sendCall).toBeDefined();
    const session = await channelSession(chat);
    const input = await runtime.getInput(session.id, `telegram:${chat}:${messageId}`);
    expect(input?.text).toBe('hello there');
  });

  it('a platform message delivered twice runs once', async () => {
    const chat = -1002;
    const first = telegram.userMessage({ chatId: chat, userId: alice, text: 'only once please' });
    await botMessage(chat, (message) => message.text.includes('✓ done'), 'the first reply');
    telegram.redeliver(first.updateId);
    // Messages of a chat are handled in order: once /help is answered, the redelivery was handled.
    telegram.userMessage({ chatId: chat, userId: alice, text: '/help' });
    await botMessage(chat, (message) => message.text.startsWith('Commands'), 'the /help reply');

    const session = await channelSession(chat);
    const inputs = await runtime.listInputs(session.id);
    expect(inputs.map((input) => input.messageId)).toEqual([`telegram:${chat}:${first.messageId}`]);
    const asked = h.model
      .conversationRequests()
      .filter((request) => lastUserText(request).includes('only once please'));
    expect(asked).toHaveLength(1);
    expect(
      telegram.messages(chat).filter((message) => message.text.includes('only once please')),
    ).toHaveLength(1);
  });

  it('an unknown command gets a clear reply and reaches no agent', async () => {
    const chat = -1003;
    const before = h.model.conversationRequests().length;
    const { messageId } = telegram.userMessage({
      chatId: chat,
      userId: alice,
      text: '/frobnicate@agentd_test_bot',
    });
    const reply = await botMessage(chat, (message) => message.replyTo === messageId, 'the refusal');

    expect(reply.text).toContain('unknown_command: unknown command /frobnicate');
    expect(reply.text).toContain('/pending');
    expect((await runtime.channels.get(`telegram:${chat}`)).session).toBeNull();
    expect(h.model.conversationRequests().length).toBe(before);
  });

  it('an approval pressed in chat: a forbidden approver changes nothing, a granted one runs the tool, a second press conflicts', async () => {
    const chat = -1004;
    telegram.userMessage({ chatId: chat, userId: bob, text: 'run it now' });
    const card = await botMessage(chat, (message) => message.keyboard.length > 0, 'the approval card');
    expect(card.text).toContain(`Bash wants to run:\ntouch ${madeFile} && echo approved-run-output`);
    expect(existsSync(join(h.cwd, madeFile))).toBe(false);
    const [approve, deny] = card.keyboard[0]!;
    expect([approve?.text, deny?.text]).toEqual(['Approve', 'Deny']);
    const session = await channelSession(chat);
    const [pending] = await runtime.interactions({ sessionId: session.id, state: 'pending' });
    expect(approve?.callback_data).toBe(`ok:${pending!.id}`);

    // /pending lists it, as a card of its own.
    telegram.userMessage({ chatId: chat, userId: bob, text: '/pending' });
    await botMessage(chat, (message) => message.text === '1 waiting for an answer:', 'the /pending reply');

    const refused = telegram.press({
      chatId: chat,
      userId: bob,
      messageId: card.messageId,
      data: approve!.callback_data,
    });
    const refusal = await waitFor(() => telegram.callbackAnswers().get(refused), { what: 'the refusal' });
    expect(refusal.text).toContain('forbidden: telegram:43 may not role.trigger on role:default/default');
    expect(refusal.showAlert).toBe(true);
    expect((await runtime.store.getInteraction(pending!.id))?.state).toBe('pending');

    const pressed = telegram.press({
      chatId: chat,
      userId: alice,
      messageId: card.messageId,
      data: approve!.callback_data,
    });
    await waitFor(() => telegram.callbackAnswers().get(pressed), { what: 'the press to be acknowledged' });
    expect(telegram.callbackAnswers().get(pressed)?.text).toBeUndefined();
    const reply = await botMessage(chat, (message) => message.text.includes('✓ done'), 'the finished reply');
    expect(reply.text).toContain('the command ran');
    expect(existsSync(join(h.cwd, madeFile))).toBe(true);
    expect(card.text).toContain('✓ approved by telegram:42');
    expect(card.keyboard).toEqual([]);
    const answered = await runtime.store.getInteraction(pending!.id);
    expect(answered?.answer).toEqual({ decision: 'approve' });
    const last = h.model.conversationRequests().at(-1)!;
    expect(toolResults(last)).toEqual([
      {
        toolUseId: pending!.toolUseId,
        content: expect.stringContaining('approved-run-output'),
        isError: false,
      },
    ]);

    const again = telegram.press({
      chatId: chat,
      userId: alice,
      messageId: card.messageId,
      data: deny!.callback_data,
    });
    const conflict = await waitFor(() => telegram.callbackAnswers().get(again), { what: 'the second press' });
    expect(conflict.text).toContain('conflict');
    expect((await runtime.store.getInteraction(pending!.id))?.answer).toEqual({ decision: 'approve' });
  });

  it('an approval answered elsewhere updates its card; its buttons are gone', async () => {
    const chat = -1005;
    rmSync(join(h.cwd, madeFile), { force: true });
    telegram.userMessage({ chatId: chat, userId: alice, text: 'run it again' });
    const card = await botMessage(chat, (message) => message.keyboard.length > 0, 'the approval card');
    const session = await channelSession(chat);
    const [pending] = await runtime.interactions({ sessionId: session.id, state: 'pending' });
    await runtime.answer(pending!.id, { decision: 'deny', reason: 'not today' });
    await waitFor(() => card.keyboard.length === 0, { what: 'the card to lose its buttons' });
    expect(card.text).toContain('✗ denied');
    expect(existsSync(join(h.cwd, madeFile))).toBe(false);
    await botMessage(chat, (message) => message.text.includes('✓ done'), 'the finished reply');
  });
});
