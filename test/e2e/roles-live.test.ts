/**
 * Providers, roles, skills, channels, commands and budgets through the runtime's public API, as
 * one team would use them: the scripted model stands in for OpenRouter and its request log shows
 * what reached it. Workers are real detached processes running the real SDK and `claude`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageResult } from '../../src/runtime/messages.js';
import type { RecordedRequest } from '../../src/testing/index.js';
import {
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  lastUserText,
  readJournal,
  readUntil,
  waitFor,
} from './helpers.js';

const canary = `sk-or-v1-canary-${randomUUID()}`;
const key = 'team/review-thread';

let h: Harness;
let skillDigest: string;
beforeAll(async () => {
  h = await createHarness({
    // Every request is answered from what it asks, so the tests can run in any order.
    script: (request) => {
      const text = lastUserText(request);
      if (text.includes('slow')) return { text: `slowly: ${text}`, delayMs: 2500 };
      // A tool call that reports a very expensive request: a turn under a cap ends before the next.
      if (JSON.stringify(request.body?.messages).includes('costly')) return { text: 'paid for it' };
      if (text.includes('expensive'))
        return {
          content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo costly' } }],
          usage: { input_tokens: 2_000_000, output_tokens: 10 },
        };
      return { text: `echo: ${text}` };
    },
    env: {
      OPENROUTER_TEST_KEY: canary,
      // The process-wide provider points elsewhere: the role's profile must win.
      ANTHROPIC_API_KEY: 'sk-ant-server-wide',
      AGENTD_IDLE_TIMEOUT_MS: '120000',
    },
  });
  await h.runtime.providers.add({
    name: 'router',
    kind: 'openrouter',
    baseUrl: h.model.url,
    secret: { env: 'OPENROUTER_TEST_KEY' },
    models: { haiku: 'z-ai/glm-4.5-air' },
  });
  const folder = join(h.root, 'skill-src', 'triage');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'SKILL.md'),
    '---\nname: triage\ndescription: TRIAGE-SKILL-MARK sorts incoming bugs\n---\n# Triage\nSort them.\n',
  );
  skillDigest = (await h.runtime.skills.add(folder)).digest;
  await h.runtime.roles.create({
    name: 'reviewer',
    label: 'Reviewer',
    provider: 'router',
    model: 'anthropic/claude-sonnet-4.6',
    systemPrompt: 'You are REVIEWER-PROMPT-MARK.',
    skills: [skillDigest],
  });
  await h.runtime.channels.bind({ key, role: 'reviewer' });
});
afterAll(async () => {
  await h?.cleanup();
});

/** The conversation request that asked `text` (the last one, when asked again). */
function requestAsking(text: string): RecordedRequest {
  const request = h.model
    .conversationRequests()
    .filter((each) => lastUserText(each).includes(text))
    .at(-1);
  expect(request, `the model was asked "${text}"`).toBeDefined();
  return request!;
}

/** Sends text to the channel and waits for its turn to settle; returns the session it went to. */
async function say(text: string): Promise<string> {
  const result = await h.runtime.channels.message(key, { text, messageId: randomUUID() });
  if (result.kind !== 'input') throw new Error(`expected an input, got ${result.kind}`);
  await waitFor(
    async () => (await h.runtime.getInput(result.session.id, result.input.messageId))?.state === 'delivered',
    { what: `"${text}" delivered` },
  );
  // The echo of the text as the agent got it (`//text` is sent as `/text`).
  const sent = text.startsWith('//') ? text.slice(1) : text;
  await readUntil(h.runtime, result.session.id, (event) => {
    if (!isEvent('agent.message')(event)) return false;
    return String(dataOf(event).text).includes(sent);
  });
  return result.session.id;
}

const systemOf = (request: RecordedRequest) => JSON.stringify(request.body?.system ?? '');

describe('roles on an openrouter profile, through a channel', () => {
  let firstSession: string;

  it("the role's profile, model, system prompt and skill reach the model: bearer token, no x-api-key", async () => {
    // The channel's first session takes a working directory of the test's own.
    firstSession = (await h.runtime.channels.session(key, { cwd: h.cwd })).id;
    expect(await say('hello reviewer')).toBe(firstSession);
    const request = requestAsking('hello reviewer');
    expect(request.headers.authorization).toBe(`Bearer ${canary}`);
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(request.body?.model).toBe('anthropic/claude-sonnet-4.6');
    expect(systemOf(request)).toContain('You are REVIEWER-PROMPT-MARK.');
    expect(JSON.stringify(request.body)).toContain('agentd:triage: TRIAGE-SKILL-MARK sorts incoming bugs');
    const session = (await h.runtime.getSession(firstSession)).session;
    expect(session).toMatchObject({ provider: 'router', role: 'reviewer', roleVersion: 1, state: 'active' });
  });

  it('a label change keeps the live session; a system prompt change archives it and the next message starts fresh', async () => {
    const before = await h.runtime.getSession(firstSession);
    expect(before.live, 'the worker is still live').not.toBeNull();
    const nativeBefore = before.session.nativeSessionId;
    expect(nativeBefore).toBeTruthy();

    const relabelled = await h.runtime.roles.update('reviewer', { label: 'Code reviewer' });
    expect(relabelled.archived).toEqual([]);
    expect(await say('after the label change')).toBe(firstSession);

    const edited = await h.runtime.roles.update('reviewer', { systemPrompt: 'You are EDITED-PROMPT-MARK.' });
    expect(edited.archived).toEqual([firstSession]);
    expect(edited.role.version).toBe(3);
    expect((await h.runtime.getSession(firstSession)).session.state).toBe('archived');
    // Archived sessions stay readable, with their whole journal.
    const archivedJournal = await readJournal(h.runtime, firstSession);
    expect(archivedJournal.some(isEvent('session.archived'))).toBe(true);

    const next = await say('after the prompt change');
    expect(next).not.toBe(firstSession);
    const fresh = (await h.runtime.getSession(next)).session;
    expect(fresh).toMatchObject({ roleVersion: 3, state: 'active' });
    expect(fresh.nativeSessionId).toBeTruthy();
    expect(fresh.nativeSessionId).not.toBe(nativeBefore);
    const request = requestAsking('after the prompt change');
    expect(systemOf(request)).toContain('You are EDITED-PROMPT-MARK.');
    expect(systemOf(request)).not.toContain('REVIEWER-PROMPT-MARK');
    // A fresh native session: nothing of the archived conversation reaches the model.
    expect(JSON.stringify(request.body?.messages)).not.toContain('hello reviewer');
  });
});

describe('the closed command protocol on a channel', () => {
  it('/compact reaches claude as exactly /compact; the compaction is journaled with the tokens before it', async () => {
    const sessionId = await say('something worth compacting');
    const result = (await h.runtime.channels.message(key, { text: '/compact' })) as MessageResult;
    expect(result).toMatchObject({ kind: 'command', command: 'compact' });
    if (result.kind !== 'command' || result.command !== 'compact') throw new Error('not /compact');
    expect(result.input.text).toBe('/compact');
    const events = await readUntil(h.runtime, sessionId, isEvent('agent.compacted'));
    const accepted = events.filter(isEvent('input.accepted')).map((event) => dataOf(event));
    expect(accepted.at(-1)).toMatchObject({ text: '/compact', command: true });
    const compacted = dataOf(events.find(isEvent('agent.compacted'))!) as { preTokens?: unknown };
    expect(typeof compacted.preTokens).toBe('number');
    expect(compacted.preTokens as number).toBeGreaterThan(0);
    // The command is not a prompt: the model was never asked "/compact" as the user's words.
    expect(
      h.model.conversationRequests().some((request) => lastUserText(request).trim() === '/compact'),
    ).toBe(false);
  });

  it('an unknown command is refused with unknown_command and journals nothing; //text is sent as /text', async () => {
    const sessionId = (await h.runtime.channels.get(key)).session!.id;
    const inputsBefore = (await h.runtime.listInputs(sessionId)).length;
    await expect(h.runtime.channels.message(key, { text: '/deploy now' })).rejects.toMatchObject({
      code: 'unknown_command',
    });
    expect((await h.runtime.listInputs(sessionId)).length).toBe(inputsBefore);
    expect(JSON.stringify(await readJournal(h.runtime, sessionId))).not.toContain('/deploy');
    expect(h.model.requests.some((request) => JSON.stringify(request.body).includes('/deploy'))).toBe(false);
    await say('//etc/hosts is a path');
    expect(lastUserText(requestAsking('/etc/hosts is a path'))).toContain('/etc/hosts is a path');
    expect(lastUserText(requestAsking('/etc/hosts is a path'))).not.toContain('//etc');
  });

  it('/status shows the live worker, /stop stops it, /new archives the session and the next message starts another', async () => {
    const sessionId = (await h.runtime.channels.get(key)).session!.id;
    const status = await h.runtime.channels.message(key, { text: '/status' });
    expect(status).toMatchObject({ kind: 'command', command: 'status' });
    if (status.kind !== 'command' || status.command !== 'status') throw new Error('not /status');
    expect(status.status?.live).not.toBeNull();

    const stop = await h.runtime.channels.message(key, { text: '/stop' });
    expect(stop).toMatchObject({ kind: 'command', command: 'stop' });
    await readUntil(h.runtime, sessionId, isEvent('execution.stopped'));
    expect((await h.runtime.getSession(sessionId)).live).toBeNull();

    const renewed = await h.runtime.channels.message(key, { text: '/new' });
    expect(renewed).toMatchObject({ kind: 'command', command: 'new' });
    expect((await h.runtime.getSession(sessionId)).session.state).toBe('archived');
    const next = await say('a fresh start');
    expect(next).not.toBe(sessionId);
    expect(JSON.stringify(requestAsking('a fresh start').body?.messages)).not.toContain('worth compacting');
  });
});

describe('budgets', () => {
  it('a turn that spends past the limit pauses the next input (budget.exceeded); sends are refused; raising the limit lets it go on', async () => {
    const sessionId = await say('warm up');
    // A slow turn; while it runs, a second input waits and the session's limit is set to what it has spent.
    const slow = await h.runtime.channels.message(key, { text: 'a slow one', messageId: 'slow-1' });
    if (slow.kind !== 'input') throw new Error('expected an input');
    await waitFor(async () => (await h.runtime.getInput(sessionId, 'slow-1'))?.state === 'delivered', {
      what: 'the slow input delivered',
    });
    const queued = await h.runtime.channels.message(key, { text: 'queued behind it', messageId: 'queued-1' });
    expect(queued.kind).toBe('input');
    await h.runtime.budgets.set({ scope: 'session', target: sessionId, limitUsd: 0 });

    const paused = await readUntil(h.runtime, sessionId, isEvent('budget.exceeded'));
    expect(dataOf(paused.find(isEvent('budget.exceeded'))!)).toMatchObject({
      scope: 'session',
      target: sessionId,
      limitUsd: 0,
    });
    expect((await h.runtime.getInput(sessionId, 'queued-1'))?.state).toBe('accepted');
    expect(
      h.model.conversationRequests().some((request) => lastUserText(request).includes('queued behind')),
    ).toBe(false);
    await expect(h.runtime.channels.message(key, { text: 'one more' })).rejects.toMatchObject({
      code: 'budget_exceeded',
    });
    expect((await h.runtime.status(sessionId)).budget).toMatchObject({ scope: 'session', limitUsd: 0 });

    await h.runtime.budgets.set({ scope: 'session', target: sessionId, limitUsd: 100 });
    await waitFor(async () => (await h.runtime.getInput(sessionId, 'queued-1'))?.state === 'delivered', {
      what: 'the paused input delivered once the limit was raised',
    });
    await readUntil(h.runtime, sessionId, (event) =>
      isEvent('agent.message')(event) ? String(dataOf(event).text).includes('queued behind it') : false,
    );
    const spent = await h.runtime.budgets.spend({ sessionId });
    expect(spent).toBe((await h.runtime.getSession(sessionId)).session.costUsd);
    expect(
      await h.runtime.budgets.spend({ organization: 'default', role: 'reviewer' }),
    ).toBeGreaterThanOrEqual(spent);
    const report = await h.runtime.budgets.report();
    const reviewer = report.roles.find((each) => each.role === 'reviewer');
    expect(reviewer?.spentUsd).toBeGreaterThanOrEqual(spent);
    expect(reviewer?.spentUsd).toBeGreaterThan(0);
    const organization = report.organizations.find((each) => each.organization === 'default');
    expect(organization?.spentUsd).toBeGreaterThanOrEqual(reviewer!.spentUsd);
  });
});

it('accepted work freezes its role: an input queued before a surface change is answered in the old session under the old prompt', async () => {
  const sessionId = await say('before the freeze');
  const slow = await h.runtime.channels.message(key, { text: 'a slow turn first', messageId: 'freeze-slow' });
  expect(slow.kind).toBe('input');
  await waitFor(async () => (await h.runtime.getInput(sessionId, 'freeze-slow'))?.state === 'delivered', {
    what: 'the slow input delivered',
  });
  const queued = await h.runtime.channels.message(key, {
    text: 'queued before the change',
    messageId: 'frozen-1',
  });
  expect(queued).toMatchObject({ kind: 'input', session: { id: sessionId } });
  const change = await h.runtime.roles.update('reviewer', { systemPrompt: 'You are FROZEN-NEW-MARK.' });
  expect(change.archived).toEqual([sessionId]);
  await waitFor(async () => (await h.runtime.getInput(sessionId, 'frozen-1'))?.state === 'delivered', {
    what: 'the queued input delivered by the archived session',
  });
  await readUntil(h.runtime, sessionId, (event) =>
    isEvent('agent.message')(event) ? String(dataOf(event).text).includes('queued before the change') : false,
  );
  const request = requestAsking('queued before the change');
  expect(systemOf(request)).toContain('EDITED-PROMPT-MARK');
  expect(systemOf(request)).not.toContain('FROZEN-NEW-MARK');
  const next = await say('after the freeze');
  expect(next).not.toBe(sessionId);
  expect(systemOf(requestAsking('after the freeze'))).toContain('FROZEN-NEW-MARK');
});

it('a message naming a role whose profile has no secret: credentials_missing naming it; the selection and the sessions are as they were', async () => {
  await h.runtime.providers.add({
    name: 'nokey',
    kind: 'custom',
    baseUrl: h.model.url,
    secret: { env: 'NO_SUCH_KEY' },
  });
  await h.runtime.roles.create({ name: 'ghost', provider: 'nokey' });
  const before = await h.runtime.channels.get(key);
  const sessions = (await h.runtime.listSessions()).length;
  await expect(h.runtime.channels.message(key, { text: 'hello ghost', role: 'ghost' })).rejects.toMatchObject(
    {
      code: 'credentials_missing',
      message: expect.stringContaining('nokey'),
    },
  );
  const after = await h.runtime.channels.get(key);
  expect(after.role.name).toBe(before.role.name);
  expect(after.session?.id).toBe(before.session?.id);
  expect((await h.runtime.listSessions()).length).toBe(sessions);
});

describe("a role's turn budget", () => {
  it("turnBudgetUsd is the SDK's maxBudgetUsd: the turn stops once it has spent it, and a raised cap takes effect at the next worker", async () => {
    await h.runtime.roles.create({ name: 'thrifty', provider: 'env', tools: ['Bash'], turnBudgetUsd: 0.05 });
    const channel = 'team/thrifty';
    const sessionId = (await h.runtime.channels.session(channel, { role: 'thrifty', cwd: h.cwd })).id;
    const result = await h.runtime.channels.message(channel, { text: 'an expensive question' });
    expect(result.kind).toBe('input');
    const events = await readUntil(h.runtime, sessionId, isEvent('agent.turn.completed'));
    const turn = dataOf(events.find(isEvent('agent.turn.completed'))!) as {
      subtype: string;
      costUsd: number;
    };
    expect(turn.subtype).toBe('error_max_budget_usd');
    expect(turn.costUsd).toBeGreaterThan(0.05);
    // The tool ran, but claude asked the model nothing more once the cap was passed.
    const asked = h.model
      .conversationRequests()
      .filter((request) => JSON.stringify(request.body).includes('costly'));
    expect(asked).toHaveLength(0);
  });
});

it('the secret is in no event and no response of the runtime', async () => {
  for (const session of await h.runtime.listSessions()) {
    expect(JSON.stringify(await readJournal(h.runtime, session.id))).not.toContain(canary);
    expect(JSON.stringify(await h.runtime.getSession(session.id))).not.toContain(canary);
  }
  expect(JSON.stringify(await h.runtime.providers.list())).not.toContain(canary);
});
