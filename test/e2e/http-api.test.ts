import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  createSessionResponseSchema,
  errorBodySchema,
  eventPageSchema,
  eventSchema,
  healthSchema,
  inputResponseSchema,
  interactionListSchema,
  interactionResponseSchema,
  readinessSchema,
  sessionDetailsSchema,
} from '../../src/server/http/schemas.js';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import type { EventRecord } from '../../src/store/store.js';
import { lastUserText } from '../../src/testing/demo-model.js';
import {
  type RecordedRequest,
  type ScriptedModel,
  type ScriptTurn,
  startScriptedModel,
} from '../../src/testing/index.js';
import { isolatedEnv } from './isolated-env.js';

const token = 'test-token-4b1d9c0e7f';
const repoRoot = join(import.meta.dirname, '..', '..');

/** Only what the tests set: no credentials, settings or home of the developer's (isolated-env.ts). */
const cleanEnv = () => isolatedEnv(root);

/** Echoes what it is told; asked to "touch" a file, runs Bash `touch` (which needs an approval). */
function testScript(request: RecordedRequest): ScriptTurn {
  const last = request.body?.messages?.at(-1);
  const content = Array.isArray(last?.content) ? (last.content as Array<{ type?: string }>) : [];
  if (content.some((block) => block.type === 'tool_result')) return { text: 'tool finished' };
  const said = lastUserText(request);
  const file = /touch (\S+)/.exec(said)?.[1];
  if (file) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: `touch ${file}` } }] };
  return { text: `echo: ${said}`, usage: { input_tokens: 1234, output_tokens: 56 } };
}

/** The tail of every worker log in a data directory, to explain a failure. */
function workerLogs(root: string): string {
  const logs = join(root, 'logs');
  if (!existsSync(logs)) return '(no logs)';
  return readdirSync(logs)
    .map((name) => `== ${name}\n${readFileSync(join(logs, name), 'utf8').slice(-4000)}`)
    .join('\n');
}

let model: ScriptedModel;
let server: RunningServer;
let root: string;
let dataDir: string;
let workDir: string;
const cleanups: Array<() => Promise<void> | void> = [];

async function api(path: string, init: RequestInit & { json?: unknown; auth?: string | null } = {}) {
  const headers = new Headers(init.headers);
  const auth = init.auth === undefined ? token : init.auth;
  if (auth !== null) headers.set('authorization', `Bearer ${auth}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${server.url}${path}`, { ...init, headers, body: body ?? null });
  const text = await response.text();
  const json = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  return { status: response.status, json, text, headers: response.headers };
}

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  return schema.parse(value);
}

function expectError(response: { status: number; json: unknown }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(parsed(errorBodySchema, response.json).error.code).toBe(code);
  expect(JSON.stringify(response.json)).not.toMatch(/\n\s+at /);
}

async function allEvents(sessionId: string): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  for (let after = 0; ; ) {
    const page = parsed(
      eventPageSchema,
      (await api(`/v1/sessions/${sessionId}/events?after=${after}&limit=50`)).json,
    );
    events.push(...(page.events as EventRecord[]));
    after = page.nextCursor;
    if (!page.hasMore) return events;
  }
}

/** Polls the events page until `found` holds; the test's own timeout bounds the wait. */
async function waitForEvents(
  sessionId: string,
  found: (events: EventRecord[]) => boolean,
): Promise<EventRecord[]> {
  for (;;) {
    const events = await allEvents(sessionId);
    if (found(events)) return events;
    const failed = events.find((event) => event.type === 'execution.failed');
    if (failed) throw new Error(`worker failed: ${JSON.stringify(failed.data)}`);
    await sleep(100);
  }
}

const settledAfter = (cursor: number) => (events: EventRecord[]) =>
  events.some((event) => event.type === 'work.settled' && event.cursor > cursor);

async function createSession(body: Record<string, unknown>) {
  const response = await api('/v1/sessions', { method: 'POST', json: { cwd: workDir, ...body } });
  expect(response.status).toBe(201);
  return parsed(createSessionResponseSchema, response.json);
}

interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A minimal EventSource: parses `text/event-stream` blocks from a fetch response. */
async function* sseMessages(response: Response): AsyncGenerator<SseMessage> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            message.comment = line.slice(1).trim();
            continue;
          }
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const fieldValue = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data')
            message.data = message.data === undefined ? fieldValue : `${message.data}\n${fieldValue}`;
          else if (field === 'id' || field === 'event') message[field] = fieldValue;
        }
        yield message;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function openStream(sessionId: string, headers: Record<string, string> = {}, query = '') {
  const controller = new AbortController();
  const response = fetch(`${server.url}/v1/sessions/${sessionId}/events${query}`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, ...headers },
    signal: controller.signal,
  });
  return { response, close: () => controller.abort() };
}

/** Stops every live worker of a runtime and waits until they are gone, so no process outlives the test. */
async function stopAllWorkers(target: RunningServer): Promise<void> {
  const { runtime } = target;
  for (const session of await runtime.listSessions()) await runtime.stop(session.id);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await runtime.reconcile();
    const live = await runtime.store.listExecutionsByState(['starting', 'running', 'idle', 'stopping']);
    if (live.length === 0) return;
    await sleep(100);
  }
}

beforeAll(async () => {
  model = await startScriptedModel({ script: testScript });
  root = mkdtempSync(join(tmpdir(), 'agentd-http-'));
  dataDir = join(root, 'data');
  workDir = join(root, 'work');
  mkdirSync(workDir);
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    env: { ...cleanEnv(), ...model.env(), AGENTD_TOKENS: `other-token, ${token}` },
    heartbeatMs: 100,
    reconcileMs: 500,
    bodyLimitBytes: 64 * 1024,
  });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  if (server) {
    await stopAllWorkers(server);
    await server.close();
  }
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('HTTP API', () => {
  let sessionId = '';

  it('sessions: a prompt starts a worker whose answer can be read as event pages', async () => {
    const created = await createSession({ prompt: 'hello there', launchId: 'launch-1' });
    expect(created.created).toBe(true);
    expect(created.input?.text).toBe('hello there');
    sessionId = created.session.id;

    const events = await waitForEvents(sessionId, settledAfter(0));
    const message = events.find((event) => event.type === 'agent.message');
    expect(message?.data).toMatchObject({ text: 'echo: hello there' });
    expect(events.map((event) => event.cursor)).toEqual(events.map((_, index) => index + 1));

    const again = await api('/v1/sessions', {
      method: 'POST',
      json: { cwd: workDir, prompt: 'hello there', launchId: 'launch-1' },
    });
    expect(again.status).toBe(200);
    expect(parsed(createSessionResponseSchema, again.json).session.id).toBe(sessionId);

    const details = parsed(sessionDetailsSchema, (await api(`/v1/sessions/${sessionId}`)).json);
    // claude may still report something after the turn settled (a `claude.message`): the session's
    // last cursor is at least the settled one and at most what the journal holds right after.
    const journalEnd = (await allEvents(sessionId)).at(-1)?.cursor ?? 0;
    expect(details.lastCursor).toBeGreaterThanOrEqual(events.at(-1)?.cursor ?? Number.POSITIVE_INFINITY);
    expect(details.lastCursor).toBeLessThanOrEqual(journalEnd);
    expect(details.inputs.map((input) => input.state)).toEqual(['delivered']);
    const list = (await api('/v1/sessions')).json as { sessions: Array<{ id: string }> };
    expect(list.sessions.map((session) => session.id)).toContain(sessionId);

    const page = parsed(
      eventPageSchema,
      (await api(`/v1/sessions/${sessionId}/events?after=1&limit=2`)).json,
    );
    expect(page.events.map((event) => event.cursor)).toEqual([2, 3]);
    expect(page).toMatchObject({ nextCursor: 3, hasMore: true });
  });

  it('events: an SSE client that reconnects with Last-Event-ID misses nothing and sees nothing twice', async () => {
    const seen: Array<{ id: number; event: string; record: EventRecord }> = [];
    const first = openStream(sessionId);
    for await (const message of sseMessages(await first.response)) {
      if (message.data === undefined) continue;
      seen.push({
        id: Number(message.id),
        event: message.event!,
        record: eventSchema.parse(JSON.parse(message.data)) as EventRecord,
      });
      if (seen.length === 3) break;
    }
    first.close();
    const lastSeen = seen.at(-1)!.id;

    // While nobody listens, a new turn journals more events.
    const sent = await api(`/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      json: { text: 'second turn' },
    });
    expect(sent.status).toBe(202);
    const before = (await allEvents(sessionId)).find(
      (event) => event.type === 'input.accepted' && (event.data as { text: string }).text === 'second turn',
    )!.cursor;

    const second = openStream(sessionId, { 'last-event-id': String(lastSeen) }, '?after=0');
    let pings = 0;
    for await (const message of sseMessages(await second.response)) {
      if (message.comment === 'ping') pings++;
      if (message.data === undefined) {
        if (pings > 0 && seen.some((entry) => entry.event === 'work.settled' && entry.id > before)) break;
        continue;
      }
      seen.push({
        id: Number(message.id),
        event: message.event!,
        record: JSON.parse(message.data) as EventRecord,
      });
    }
    second.close();

    const journal = await allEvents(sessionId);
    const ids = seen.map((entry) => entry.id);
    expect(ids).toEqual(journal.slice(0, ids.length).map((event) => event.cursor));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(seen.map((entry) => entry.record)).toEqual(journal.slice(0, ids.length));
    expect(seen.every((entry) => entry.event === entry.record.type)).toBe(true);
    expect(pings).toBeGreaterThan(0);

    const streamed = await api(`/v1/sessions/${sessionId}/events/stream`, {
      headers: { 'last-event-id': 'soon' },
    });
    expectError(streamed, 400, 'invalid_input');
  });

  it('messages: the same id and text is the same input; other text under that id is a conflict', async () => {
    const body = { text: 'idempotent hello', messageId: 'client-msg-1' };
    const first = await api(`/v1/sessions/${sessionId}/messages`, { method: 'POST', json: body });
    expect(first.status).toBe(202);
    const input = parsed(inputResponseSchema, first.json).input;
    expect(input.messageId).toBe('client-msg-1');

    const again = await api(`/v1/sessions/${sessionId}/messages`, { method: 'POST', json: body });
    expect(again.status).toBe(202);
    expect(parsed(inputResponseSchema, again.json).input.id).toBe(input.id);

    const conflict = await api(`/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      json: { text: 'something else', messageId: 'client-msg-1' },
    });
    expectError(conflict, 409, 'conflict');

    await waitForEvents(sessionId, (events) =>
      events.some(
        (event) =>
          event.type === 'agent.message' &&
          (event.data as { text: string }).text === 'echo: idempotent hello',
      ),
    );
    const inputs = (await api(`/v1/sessions/${sessionId}/inputs`)).json as {
      inputs: Array<{ messageId: string }>;
    };
    expect(inputs.inputs.filter((entry) => entry.messageId === 'client-msg-1')).toHaveLength(1);
  });

  it('interactions: a tool use waits for an approval, runs once approved, and a second answer is a conflict', async () => {
    const { session } = await createSession({ prompt: 'please touch approved.txt' });
    const target = join(workDir, 'approved.txt');
    let pending: z.output<typeof interactionListSchema>['interactions'] = [];
    while (pending.length === 0) {
      const response = await api(`/v1/interactions?sessionId=${session.id}&state=pending`);
      pending = parsed(interactionListSchema, response.json).interactions;
      const events = await allEvents(session.id);
      if (events.some((event) => event.type === 'execution.failed' || event.type === 'work.settled'))
        throw new Error(`no approval was asked: ${JSON.stringify(events.map((event) => event.type))}`);
      if (pending.length === 0) await sleep(100);
    }
    const [interaction] = pending;
    expect(interaction).toMatchObject({ kind: 'approval', toolName: 'Bash', state: 'pending' });
    expect(existsSync(target)).toBe(false);

    const wrongShape = await api(`/v1/interactions/${interaction!.id}/answer`, {
      method: 'POST',
      json: { decision: 'maybe' },
    });
    expectError(wrongShape, 400, 'invalid_input');
    const stillPending = await api(`/v1/interactions?sessionId=${session.id}&state=pending`);
    expect(parsed(interactionListSchema, stillPending.json).interactions).toHaveLength(1);

    const answered = await api(`/v1/interactions/${interaction!.id}/answer`, {
      method: 'POST',
      json: { decision: 'approve' },
    });
    expect(answered.status).toBe(200);
    expect(parsed(interactionResponseSchema, answered.json).interaction.state).toBe('answered');

    const events = await waitForEvents(session.id, settledAfter(0));
    expect(events.map((event) => event.type)).toContain('interaction.answered');
    expect(existsSync(target)).toBe(true);

    const second = await api(`/v1/interactions/${interaction!.id}/answer`, {
      method: 'POST',
      json: { decision: 'deny', reason: 'too late' },
    });
    expectError(second, 409, 'conflict');
    expectError(
      await api('/v1/interactions/no-such-interaction/answer', {
        method: 'POST',
        json: { decision: 'approve' },
      }),
      404,
      'not_found',
    );
  });

  it('executions: stop, resume, interrupt and archive translate to the runtime', async () => {
    const { session } = await createSession({});
    const path = `/v1/sessions/${session.id}`;
    expect((await api(`${path}/stop`, { method: 'POST' })).json).toEqual({ execution: null });
    expect((await api(`${path}/interrupt`, { method: 'POST' })).json).toEqual({ interrupted: false });

    const resumed = await api(`${path}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(201);
    expectError(await api(`${path}/resume`, { method: 'POST' }), 409, 'invalid_state');
    const interrupted = await api(`${path}/interrupt`, { method: 'POST', json: { reason: 'testing' } });
    expect(interrupted.json).toEqual({ interrupted: true });

    const stopping = await api(`${path}/stop`, { method: 'POST' });
    expect(stopping.status).toBe(202);
    expect((stopping.json as { execution: { state: string } }).execution.state).toBe('stopping');
    const archived = await api(`${path}/archive`, { method: 'POST' });
    expect((archived.json as { session: { state: string } }).session.state).toBe('archived');
    expectError(
      await api(`${path}/messages`, { method: 'POST', json: { text: 'are you there?' } }),
      409,
      'invalid_state',
    );
    const executions = (await api(`${path}/executions`)).json as { executions: unknown[] };
    expect(executions.executions).toHaveLength(1);
    expectError(await api('/v1/sessions/no-such-session/stop', { method: 'POST' }), 404, 'not_found');
  });

  it('auth: without a valid token nothing is served and nothing changes; probes stay open', async () => {
    const before = (await api('/v1/sessions')).json as { sessions: unknown[] };
    const body = { prompt: 'should not run', cwd: workDir };
    for (const auth of [null, 'wrong-token']) {
      const refused = await api('/v1/sessions', { method: 'POST', json: body, auth });
      expectError(refused, 401, 'unauthorized');
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectError(await api('/v1/sessions', { auth }), 401, 'unauthorized');
      expectError(await api('/health', { auth }), 401, 'unauthorized');
      expectError(await api('/metrics', { auth }), 401, 'unauthorized');
    }
    expectError(
      await api('/v1/sessions', { headers: { authorization: `Basic ${token}` }, auth: null }),
      401,
      'unauthorized',
    );
    const after = (await api('/v1/sessions')).json as { sessions: unknown[] };
    expect(after.sessions).toHaveLength(before.sessions.length);

    expect((await api('/health/live', { auth: null })).status).toBe(200);
    expect((await api('/health/ready', { auth: null })).status).toBe(200);
    expect((await api('/v1/sessions', { auth: 'other-token' })).status).toBe(200);
  });

  it('bad input: malformed JSON, oversized bodies, unknown routes and wrong types get a JSON error and change nothing', async () => {
    const before = ((await api('/v1/sessions')).json as { sessions: unknown[] }).sessions.length;
    const malformed = await api('/v1/sessions', {
      method: 'POST',
      body: '{"prompt": "hi",',
      headers: { 'content-type': 'application/json' },
    });
    expectError(malformed, 400, 'invalid_json');

    const huge = await api('/v1/sessions', {
      method: 'POST',
      json: { prompt: 'x'.repeat(100 * 1024), cwd: workDir },
    });
    expectError(huge, 413, 'payload_too_large');

    expectError(await api('/v1/no-such-route'), 404, 'not_found');
    expectError(await api('/v1/sessions', { method: 'DELETE' }), 404, 'not_found');

    const wrongTypes = await api('/v1/sessions', {
      method: 'POST',
      json: { prompt: 42, permissionMode: 'yolo' },
    });
    expectError(wrongTypes, 400, 'invalid_input');
    const issues = (wrongTypes.json as { error: { details: { issues: Array<{ path: string }> } } }).error
      .details.issues;
    expect(issues.map((issue) => issue.path).sort()).toEqual(['permissionMode', 'prompt']);
    expectError(await api('/v1/sessions', { method: 'POST', json: { promt: 'typo' } }), 400, 'invalid_input');
    expectError(
      await api('/v1/sessions', { method: 'POST', json: ['not', 'an', 'object'] }),
      400,
      'invalid_input',
    );
    expectError(await api('/v1/sessions?limit=many'), 400, 'invalid_input');
    expectError(
      await api(`/v1/sessions/${sessionId}/messages`, { method: 'POST', json: { text: '' } }),
      400,
      'invalid_input',
    );
    expectError(
      await api('/v1/sessions/no-such-session/messages', { method: 'POST', json: { text: 'hi' } }),
      404,
      'not_found',
    );
    expectError(await api('/v1/sessions/no-such-session/events'), 404, 'not_found');

    const after = ((await api('/v1/sessions')).json as { sessions: unknown[] }).sessions.length;
    expect(after).toBe(before);
    const noCors = await api('/health', { headers: { origin: 'https://evil.example' } });
    expect(noCors.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('health: reports version, model, sessions, workers and store; readiness is 503 at the worker maximum', async () => {
    const health = parsed(healthSchema, (await api('/health')).json);
    expect(health).toMatchObject({
      status: 'ok',
      model: 'anthropic',
      store: { kind: 'sqlite', status: 'ok' },
    });
    expect(health.sessions.total).toBeGreaterThanOrEqual(3);
    expect(health.liveWorkers).toBeGreaterThanOrEqual(1);
    expect(health.maxLiveWorkers).toBe(16);

    // A second server on the same data directory whose maximum is already reached.
    const full = await startServer({
      port: 0,
      dataDir,
      env: { ...cleanEnv(), ...model.env() },
      maxLiveWorkers: 1,
    });
    try {
      const response = await fetch(`${full.url}/health/ready`);
      expect(response.status).toBe(503);
      const readiness = parsed(readinessSchema, await response.json());
      expect(readiness.ready).toBe(false);
      expect(readiness.reasons.join()).toMatch(/maximum/);
      expect((await fetch(`${full.url}/health/live`)).status).toBe(200);
    } finally {
      await full.close();
    }
    const ready = parsed(readinessSchema, (await api('/health/ready', { auth: null })).json);
    expect(ready.ready).toBe(true);
  });

  it('metrics: exposes the agentd_ metrics and counts completed turns and their tokens from the journal', async () => {
    const response = await api('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    for (const name of [
      'agentd_queries_total',
      'agentd_query_duration_seconds',
      'agentd_tokens_total',
      'agentd_cost_usd_total',
      'agentd_errors_total',
      'agentd_retries_total',
      'agentd_pending_approvals',
      'agentd_sessions_active',
      'agentd_queries_running',
      'agentd_journal_events_total',
      'agentd_live_workers',
    ]) {
      expect(response.text).toContain(`# TYPE ${name} `);
    }
    /** The sum of every sample of a metric whose labels match. */
    const total = (text: string, metric: string, labels = '') =>
      [...text.matchAll(new RegExp(`^${metric}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))]
        .filter((match) => (match[1] ?? '').includes(labels))
        .reduce((sum, match) => sum + Number(match[2]), 0);
    // Three echo turns so far (1234 input tokens each), plus the tool turn.
    expect(total(response.text, 'agentd_tokens_total', 'direction="input"')).toBeGreaterThanOrEqual(3 * 1234);
    expect(total(response.text, 'agentd_queries_total', 'status="success"')).toBeGreaterThanOrEqual(4);
    expect(total(response.text, 'agentd_journal_events_total', 'type="work.settled"')).toBeGreaterThanOrEqual(
      4,
    );
    expect(total(response.text, 'agentd_sessions_active')).toBeGreaterThanOrEqual(2);

    // A second scrape counts nothing twice.
    const again = await api('/metrics');
    expect(total(again.text, 'agentd_queries_total')).toBe(total(response.text, 'agentd_queries_total'));
  });

  it('openapi: /openapi.json documents every route with schemas from the validators', async () => {
    const document = (await api('/openapi.json')).json as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{id}',
        '/v1/sessions/{id}/messages',
        '/v1/sessions/{id}/events',
        '/v1/sessions/{id}/events/stream',
        '/v1/interactions',
        '/v1/interactions/{id}/answer',
        '/v1/sessions/{id}/stop',
        '/v1/sessions/{id}/resume',
        '/health',
        '/metrics',
      ]),
    );
    expect(document.components.schemas).toHaveProperty('CreateSessionRequest');
    expect(document.components.schemas).toHaveProperty('Answer');
  });
});

describe('serve configurations', () => {
  it('without credentials (and without --offline) the server starts but refuses to start agents', async () => {
    const bare = await startServer({
      port: 0,
      dataDir: join(root, 'bare'),
      env: cleanEnv(),
    });
    try {
      const health = parsed(healthSchema, await (await fetch(`${bare.url}/health`)).json());
      expect(health.model).toBe('unconfigured');
      const response = await fetch(`${bare.url}/v1/sessions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'hi' }),
      });
      expect(response.status).toBe(503);
      const body = parsed(errorBodySchema, await response.json());
      expect(body.error.code).toBe('credentials_missing');
      expect(body.error.message).toMatch(/ANTHROPIC_API_KEY/);
      expect(await bare.runtime.listSessions()).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  it('refuses a non-loopback host without tokens unless --insecure, and a config file with unknown keys', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, env: cleanEnv() })).rejects.toMatchObject({
      code: 'invalid_config',
    });
    const open = await startServer({ host: '0.0.0.0', port: 0, insecure: true, dataDir, env: cleanEnv() });
    expect(open.notices.join()).toMatch(/no authentication/);
    await open.close();

    const cli = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'agentd.js'), 'serve', '--host', '0.0.0.0', '--port', '0'],
      {
        env: { ...cleanEnv(), AGENTD_DATA_DIR: join(dataDir, 'unused') },
        cwd: workDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    cli.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/AGENTD_TOKENS/);

    const configFile = join(dataDir, 'bad-config.json');
    writeFileSync(configFile, JSON.stringify({ tokenz: ['typo'] }));
    const badConfig = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'agentd.js'), 'serve', '--port', '0', '--config', configFile],
      {
        env: { ...cleanEnv(), AGENTD_DATA_DIR: join(dataDir, 'unused') },
        cwd: workDir,
        encoding: 'utf8',
      },
    );
    expect(badConfig.status).toBe(2);
    expect(badConfig.stderr).toMatch(/tokenz/);
  });

  it('`agentd serve --offline` answers with the demo model when no credentials are set', async () => {
    const offlineData = join(root, 'offline');
    const child: ChildProcess = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'agentd.js'), 'serve', '--offline', '--port', '0', '--data-dir', offlineData],
      { env: cleanEnv(), cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk) => {
        stdout += String(chunk);
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match && stdout.includes('\nmodel:')) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
    });
    try {
      expect(stdout).toContain('model: offline (scripted demo model)');
      const health = parsed(healthSchema, await (await fetch(`${url}/health`)).json());
      expect(health.model).toBe('offline');

      const created = await fetch(`${url}/v1/sessions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'hello demo', cwd: offlineData }),
      });
      expect(created.status).toBe(201);
      const { session } = parsed(createSessionResponseSchema, await created.json());
      // Not a timing assertion: past this point the test fails with the worker's logs, not a bare timeout.
      const diagnoseAt = Date.now() + 45_000;
      let events: EventRecord[] = [];
      while (!events.some((event) => event.type === 'agent.message')) {
        if (events.length > 0) await sleep(100);
        const page = parsed(
          eventPageSchema,
          await (await fetch(`${url}/v1/sessions/${session.id}/events?limit=1000`)).json(),
        );
        events = page.events as EventRecord[];
        if (events.some((event) => event.type === 'execution.failed') || Date.now() > diagnoseAt)
          throw new Error(
            `no answer from the demo model:\n${JSON.stringify(events)}\n${workerLogs(offlineData)}`,
          );
      }
      const message = events.find((event) => event.type === 'agent.message')?.data as
        | { text?: string }
        | undefined;
      const text = message?.text ?? '';
      expect(text).toMatch(/offline demo model/);
      expect(text).toContain('You said: hello demo');

      // Stopped as soon as the answer is in: the stop may land as the turn ends, and must still stop the worker.
      await fetch(`${url}/v1/sessions/${session.id}/stop`, { method: 'POST' });
      const stopDiagnoseAt = Date.now() + 30_000;
      for (;;) {
        const details = parsed(
          sessionDetailsSchema,
          await (await fetch(`${url}/v1/sessions/${session.id}`)).json(),
        );
        if (!details.live) break;
        if (Date.now() > stopDiagnoseAt)
          throw new Error(`the worker did not stop:\n${JSON.stringify(details)}\n${workerLogs(offlineData)}`);
        await sleep(100);
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
