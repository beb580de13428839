/**
 * Provider profiles as the worker applies them: the scripted model stands in for OpenRouter, and
 * its request log shows what reached it (auth header, model ids of the conversation and of
 * claude's side requests). The server's own process-wide variables point elsewhere, with another
 * token: the profile wins. A missing secret fails the execution with `credentials_missing`. The
 * secret is in no file of the data dir (database, logs) and in no event.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, dataOf, type Harness, isEvent, readJournal, readUntil } from './helpers.js';
import { createWorkerSession, journalInput, startWorker } from './support/worker-session.js';

const canary = `sk-or-v1-canary-${randomUUID()}`;
const serverToken = `server-wide-token-${randomUUID()}`;
const models = {
  opus: 'anthropic/claude-opus-4.5',
  sonnet: 'z-ai/glm-4.7',
  haiku: 'z-ai/glm-4.5-air',
  subagent: 'z-ai/glm-4.7',
};

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    script: (_request, index) => ({ text: `reply ${index}` }),
    env: {
      OPENROUTER_TEST_KEY: canary,
      // The server's own provider: OpenRouter's real endpoint with another token.
      ANTHROPIC_BASE_URL: 'https://openrouter.ai/api',
      ANTHROPIC_AUTH_TOKEN: serverToken,
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-of-the-server',
      // claude makes its side requests (the haiku model's) only with non-essential traffic on.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      AGENTD_IDLE_TIMEOUT_MS: '1500',
    },
  });
});
afterAll(async () => {
  await h?.cleanup();
});

/** Every file under `root`, read whole. */
function filesUnder(root: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

it('an openrouter profile: bearer token from its variable, no x-api-key, its model ids in the conversation and in side requests', async () => {
  await h.runtime.store.putProvider({
    name: 'team-openrouter',
    kind: 'openrouter',
    baseUrl: h.model.url,
    secret: { env: 'OPENROUTER_TEST_KEY' },
    models,
    now: Date.now(),
  });
  const session = await createWorkerSession(h, {
    provider: 'team-openrouter',
    config: { model: 'z-ai/glm-4.7' },
  });
  await journalInput(h, session.id, 'hello through openrouter');
  const execution = await startWorker(h, session.id);
  const events = await readUntil(h.runtime, session.id, isEvent('work.settled', execution.id));
  expect(events.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual(['reply 0']);

  const messages = h.model.requests.filter((request) => request.path === '/v1/messages');
  expect(messages.length).toBeGreaterThan(0);
  for (const request of messages) {
    expect(request.headers.authorization).toBe(`Bearer ${canary}`);
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(request.headers)).not.toContain(serverToken);
  }
  const conversation = h.model.conversationRequests();
  expect(conversation.map((request) => request.body?.model)).toEqual(['z-ai/glm-4.7']);
  const side = messages.filter((request) => !request.conversation);
  expect(side.length, "claude's side requests (haiku)").toBeGreaterThan(0);
  expect(new Set(side.map((request) => request.body?.model))).toEqual(new Set([models.haiku]));
});

it('a profile whose secret file is gone: the execution fails with credentials_missing naming the profile, no stack, inputs stay accepted', async () => {
  const file = join(h.root, 'secret-key');
  writeFileSync(file, canary);
  await h.runtime.store.putProvider({
    name: 'filed',
    kind: 'custom',
    baseUrl: h.model.url,
    secret: { file },
    models: {},
    now: Date.now(),
  });
  const session = await createWorkerSession(h, { provider: 'filed' });
  rmSync(file);
  const input = await journalInput(h, session.id, 'never sent');
  const before = h.model.requests.length;
  const execution = await startWorker(h, session.id);
  const events = await readUntil(h.runtime, session.id, isEvent('execution.failed', execution.id));
  const failed = dataOf(events.find(isEvent('execution.failed'))!) as {
    error: { code: string; message: string };
  };
  expect(failed.error.code).toBe('credentials_missing');
  expect(failed.error.message).toContain('provider profile filed');
  expect(failed.error.message).toContain(file);
  expect((await h.runtime.store.getInput(session.id, input.messageId))?.state).toBe('accepted');
  expect(h.model.requests.length).toBe(before);
  const log = readFileSync(join(h.dataDir, 'logs', `${execution.id}.log`), 'utf8');
  expect(log).toContain('credentials_missing');
  expect(log).not.toMatch(/\n\s+at /);
});

it('the secret is in no file of the data dir and in no event', async () => {
  const sessions = await h.runtime.store.listSessions();
  for (const session of sessions) {
    expect(JSON.stringify(await readJournal(h.runtime, session.id))).not.toContain(canary);
  }
  for (const { path, bytes } of filesUnder(h.dataDir)) {
    for (const secret of [canary, canary.slice(-36)])
      expect(bytes.includes(secret), `${path} holds the secret`).toBe(false);
  }
});
