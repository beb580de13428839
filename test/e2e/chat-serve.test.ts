/**
 * `agentd serve` with a Telegram bridge in its config file, the token by environment only: the
 * server is SIGKILLed mid-turn, the detached worker finishes the turn, and the restarted server's
 * bridge streams the reply to its end, read back from the journal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
