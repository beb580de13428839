/**
 * `agentd serve` with a Telegram bridge in its config file, the token by environment only: the
 * server is SIGKILLed mid-turn, the detached worker finishes the turn, and the restarted server's
 * bridge streams the reply to its end, read back from the journal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeFeishu, startFakeFeishu } from '../../src/bridges/testing/fake-feishu.js';
import { type FakeTelegram, startFakeTelegram } from '../../src/bridges/testing/fake-telegram.js';
import {
  createHarness,
  type Harness,
  isRunning,
  killGroup,
  lastUserText,
  linesOf,
  spawnCli,
  waitFor,
} from './helpers.js';

let h: Harness | undefined;
let telegram: FakeTelegram | undefined;
afterEach(async () => {
  await telegram?.close();
  await h?.cleanup();
  h = undefined;
  telegram = undefined;
});

const chat = -2001;
const user = 77;

describe('telegram bridge in agentd serve', () => {
  it('the server killed mid-turn and restarted: the reply is completed, the message ran once', async () => {
    h = await createHarness({
      script: (request) => {
        const text = lastUserText(request).trim().split('\n').at(-1) ?? '';
        return text.includes('slow') ? { text: 'slow reply finished', delayMs: 12_000 } : { text: 'ok' };
      },
      env: { AGENTD_IDLE_TIMEOUT_MS: '120000' },
    });
    const harness = h;
    const fake = await startFakeTelegram();
    telegram = fake;
    await harness.runtime.grants.add({
      principal: `telegram:${user}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
    const configFile = join(harness.root, 'agentd.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        claude: { cwd: harness.cwd },
        bridges: {
          telegram: {
            tokenEnv: 'TEST_TELEGRAM_TOKEN',
            apiRoot: fake.apiRoot,
            editIntervalMs: 50,
            pollTimeoutSeconds: 1,
          },
        },
      }),
    );
    const env = { ...harness.env, TEST_TELEGRAM_TOKEN: fake.token };
    const serve = () => {
      const child = harness.track(
        spawnCli(['serve', '--port', '0', '--data-dir', harness.dataDir, '--config', configFile], env),
      );
      const { lines } = linesOf(child);
      return { child, lines };
    };

    const first = serve();
    await waitFor(() => first.lines.some((line) => line.includes('chat bridge: telegram')), {
      what: 'the first server to start its bridge',
    });
    const { messageId } = fake.userMessage({ chatId: chat, userId: user, text: 'slow please' });
    await waitFor(() => fake.messages(chat).some((message) => message.text === '… working'), {
      what: 'the reply to be sent',
    });
    await waitFor(
      () =>
        harness.model.conversationRequests().some((request) => lastUserText(request).includes('slow please')),
      { what: 'the model to be asked' },
    );
    killGroup(first.child.pid);
    await waitFor(() => first.child.pid !== undefined && !isRunning(first.child.pid), {
      what: 'the server to die',
    });
    expect(fake.messages(chat).some((message) => message.text.includes('✓ done'))).toBe(false);

    const second = serve();
    const done = await waitFor(() => fake.messages(chat).find((message) => message.text.includes('✓ done')), {
      what: 'the reply to be completed by the restarted server',
      timeoutMs: 50_000,
    });
    expect(second.lines.some((line) => line.includes('chat bridge: telegram'))).toBe(true);
    expect(done.text).toMatch(/^slow reply finished\n\n✓ done · \$\d+\.\d{4}$/);
    expect(done.replyTo).toBe(messageId);
    // The restarted bridge edited the reply the first one sent (the store keeps which message it is).
    expect(fake.messages(chat)).toHaveLength(1);
    expect(done.edits.at(-1)).toBe(done.text);

    const details = await harness.runtime.channels.get(`telegram:${chat}`);
    const inputs = await harness.runtime.listInputs(details.session!.id);
    expect(inputs.map((input) => [input.messageId, input.state])).toEqual([
      [`telegram:${chat}:${messageId}`, 'delivered'],
    ]);
    const asked = harness.model
      .conversationRequests()
      .filter((request) => lastUserText(request).includes('slow please'));
    expect(asked).toHaveLength(1);
    // The token travels by environment only.
    for (const line of [...first.lines, ...second.lines]) expect(line).not.toContain(fake.token);
    expect(readFileSync(harness.runtime.paths.database).includes(fake.token)).toBe(false);
  }, 120_000);
});

/** A port nothing listens on (now). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function health(lines: string[]): Promise<{ status: string; bridges: Array<Record<string, unknown>> }> {
  const line = lines.find((each) => each.includes(' listening on '));
  const url = line?.slice(line.indexOf('http'));
  const response = await fetch(`${url}/health`);
  return (await response.json()) as { status: string; bridges: Array<Record<string, unknown>> };
}

describe('bridges in agentd serve: reaching the platform', () => {
  it('a platform unreachable at start: the server runs, /health reports the bridge retrying, then it connects and serves', async () => {
    h = await createHarness({ script: () => ({ text: 'reached at last' }), env: {} });
    const harness = h;
    await harness.runtime.grants.add({
      principal: `telegram:${user}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
    const port = await freePort();
    const configFile = join(harness.root, 'agentd.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        claude: { cwd: harness.cwd },
        bridges: {
          telegram: {
            tokenEnv: 'TEST_TELEGRAM_TOKEN',
            apiRoot: `http://127.0.0.1:${port}`,
            editIntervalMs: 50,
            pollTimeoutSeconds: 1,
            retry: { initialDelayMs: 200, maxDelayMs: 400 },
          },
        },
      }),
    );
    const token = '123456:fake-telegram-token';
    const child = harness.track(
      spawnCli(['serve', '--port', '0', '--data-dir', harness.dataDir, '--config', configFile], {
        ...harness.env,
        TEST_TELEGRAM_TOKEN: token,
      }),
    );
    const { lines } = linesOf(child);
    await waitFor(() => lines.some((line) => line.includes('chat bridge: telegram')), {
      what: 'the server to start',
    });
    const retrying = await waitFor(
      async () => {
        const body = await health(lines);
        return (body.bridges[0]?.failures as number) >= 2 ? body : null;
      },
      { what: '/health to report failed attempts' },
    );
    expect(retrying.status).toBe('degraded');
    expect(retrying.bridges).toEqual([
      {
        platform: 'telegram',
        state: 'retrying',
        failures: expect.any(Number),
        lastError: expect.any(String),
        nextAttemptAt: expect.any(String),
      },
    ]);
    expect(JSON.stringify(retrying)).not.toContain(token);
    expect(isRunning(child.pid!)).toBe(true);

    const fake = await startFakeTelegram({ token, port });
    telegram = fake;
    const connected = await waitFor(
      async () => {
        const body = await health(lines);
        return body.bridges[0]?.state === 'connected' ? body : null;
      },
      { what: 'the bridge to connect' },
    );
    expect(connected.status).toBe('ok');
    fake.userMessage({ chatId: chat, userId: user, text: 'are you there' });
    const done = await waitFor(() => fake.messages(chat).find((message) => message.text.includes('✓ done')), {
      what: 'the reply',
      timeoutMs: 45_000,
    });
    expect(done.text).toContain('reached at last');
    for (const line of lines) expect(line).not.toContain(token);
  }, 120_000);

  it('telegram by webhook: setWebhook with the secret token, updates posted to agentd serve are answered, a wrong secret is refused', async () => {
    h = await createHarness({ script: () => ({ text: 'hooked' }), env: {} });
    const harness = h;
    await harness.runtime.grants.add({
      principal: `telegram:${user}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
    const fake = await startFakeTelegram();
    telegram = fake;
    const port = await freePort();
    const configFile = join(harness.root, 'agentd.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        claude: { cwd: harness.cwd },
        bridges: {
          telegram: {
            tokenEnv: 'TEST_TELEGRAM_TOKEN',
            apiRoot: fake.apiRoot,
            editIntervalMs: 50,
            webhook: { publicUrl: `http://127.0.0.1:${port}`, secretTokenEnv: 'TEST_TELEGRAM_SECRET' },
          },
        },
      }),
    );
    const secretToken = 'webhook-secret-abc';
    const child = harness.track(
      spawnCli(['serve', '--port', String(port), '--data-dir', harness.dataDir, '--config', configFile], {
        ...harness.env,
        TEST_TELEGRAM_TOKEN: fake.token,
        TEST_TELEGRAM_SECRET: secretToken,
      }),
    );
    const { lines } = linesOf(child);
    const hook = await waitFor(() => fake.webhook(), { what: 'setWebhook' });
    expect(hook).toEqual({ url: `http://127.0.0.1:${port}/bridges/telegram/webhook`, secretToken });
    expect(fake.calls.some((call) => call.method === 'getUpdates')).toBe(false);

    const { updateId, messageId } = fake.userMessage({ chatId: chat, userId: user, text: 'by hook' });
    const done = await waitFor(() => fake.messages(chat).find((message) => message.text.includes('✓ done')), {
      what: 'the reply',
      timeoutMs: 45_000,
    });
    expect(done.text).toMatch(/^hooked\n\n✓ done/);
    expect(done.replyTo).toBe(messageId);
    expect(fake.deliveries.get(updateId)).toBe(200);

    const sessions = await harness.runtime.listSessions();
    expect(await fake.forgeDelivery('not-the-secret')).toBe(401);
    expect(await fake.forgeDelivery(undefined)).toBe(401);
    expect(await harness.runtime.listSessions()).toHaveLength(sessions.length);
    for (const line of lines) expect(line).not.toContain(secretToken);
  }, 120_000);
});

describe('feishu bridge in agentd serve', () => {
  let feishu: FakeFeishu | undefined;
  afterEach(async () => {
    await feishu?.close();
    feishu = undefined;
  });

  it('the server killed mid-turn and restarted: the reply is completed in the same card, the message ran once', async () => {
    h = await createHarness({
      script: (request) => {
        const text = lastUserText(request).trim().split('\n').at(-1) ?? '';
        return text.includes('slow') ? { text: 'slow card finished', delayMs: 12_000 } : { text: 'ok' };
      },
      env: { AGENTD_IDLE_TIMEOUT_MS: '120000' },
    });
    const harness = h;
    const fake = await startFakeFeishu();
    feishu = fake;
    const openId = 'ou_carol';
    await harness.runtime.grants.add({
      principal: `feishu:${openId}`,
      action: 'agent.trigger',
      resource: 'project:default/*',
    });
    const configFile = join(harness.root, 'agentd.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        claude: { cwd: harness.cwd },
        bridges: {
          feishu: {
            appId: fake.appId,
            appSecretEnv: 'TEST_FEISHU_SECRET',
            verificationTokenEnv: 'TEST_FEISHU_TOKEN',
            encryptKeyEnv: 'TEST_FEISHU_KEY',
            domain: fake.domain,
            editIntervalMs: 50,
          },
        },
      }),
    );
    const env = {
      ...harness.env,
      TEST_FEISHU_SECRET: fake.appSecret,
      TEST_FEISHU_TOKEN: fake.verificationToken,
      TEST_FEISHU_KEY: fake.encryptKey,
    };
    const serve = async () => {
      const child = harness.track(
        spawnCli(['serve', '--port', '0', '--data-dir', harness.dataDir, '--config', configFile], env),
      );
      const { lines } = linesOf(child);
      await waitFor(
        async () => {
          const line = lines.find((each) => each.includes(' listening on '));
          if (!line) return false;
          const body = await health(lines);
          return body.bridges[0]?.state === 'connected';
        },
        { what: 'the server to connect its feishu bridge' },
      );
      const line = lines.find((each) => each.includes(' listening on '))!;
      fake.requestUrl = `${line.slice(line.indexOf('http'))}/bridges/feishu/events`;
      return { child, lines };
    };

    const chatId = 'oc_serve_1';
    const first = await serve();
    const { messageId } = await fake.userMessage({ chatId, openId, text: 'slow please' });
    await waitFor(() => fake.messages(chatId).some((message) => message.card.text === '… working'), {
      what: 'the card to be sent',
    });
    await waitFor(
      () =>
        harness.model.conversationRequests().some((request) => lastUserText(request).includes('slow please')),
      { what: 'the model to be asked' },
    );
    killGroup(first.child.pid);
    await waitFor(() => first.child.pid !== undefined && !isRunning(first.child.pid), {
      what: 'the server to die',
    });
    expect(fake.messages(chatId).some((message) => message.card.text.includes('✓ done'))).toBe(false);

    const second = await serve();
    const done = await waitFor(
      () => fake.messages(chatId).find((message) => message.card.text.includes('✓ done')),
      { what: 'the card to be completed by the restarted server', timeoutMs: 50_000 },
    );
    expect(done.card.text).toMatch(/^slow card finished\n\n✓ done · \$\d+\.\d{4}$/);
    expect(done.replyTo).toBe(messageId);
    expect(fake.messages(chatId)).toHaveLength(1);

    const details = await harness.runtime.channels.get(`feishu:${chatId}`);
    const inputs = await harness.runtime.listInputs(details.session!.id);
    expect(inputs.map((input) => [input.messageId, input.state])).toEqual([
      [`feishu:${chatId}:${messageId}`, 'delivered'],
    ]);
    expect(
      harness.model.conversationRequests().filter((request) => lastUserText(request).includes('slow please')),
    ).toHaveLength(1);
    for (const line of [...first.lines, ...second.lines]) {
      expect(line).not.toContain(fake.appSecret);
      expect(line).not.toContain(fake.encryptKey);
    }
    const database = readFileSync(harness.runtime.paths.database);
    for (const secret of [fake.appSecret, fake.verificationToken, fake.encryptKey])
      expect(database.includes(secret)).toBe(false);
  }, 120_000);
});
