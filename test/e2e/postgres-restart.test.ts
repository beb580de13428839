/**
 * PostgreSQL stopped with `pg_ctl -m immediate` under a running `agentd serve`, then started again:
 * clear `store_unavailable` errors (HTTP 503, readiness failing) while it is down, and recovery
 * without restarting agentd once it is back. Runs on a private cluster of its own, since it stops it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/journal/process-identity.js';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { type ScriptedModel, startScriptedModel } from '../../src/testing/index.js';
import { findPostgresBin, type PostgresCluster, startCluster } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/test-database.js';
import { checkGuarantees, isEvent, isolatedEnv, killGroup, readUntil, waitFor } from './helpers.js';

// This file needs the binaries (it stops and starts its own server), not only a URL.
const available = testPostgresUrl('postgres-restart.test.ts') !== undefined && findPostgresBin() !== null;
if (!available && process.env.CI) {
  throw new Error('postgres-restart.test.ts needs PostgreSQL installed (/usr/lib/postgresql/*/bin) in CI');
}

let cluster: PostgresCluster | undefined;
let model: ScriptedModel | undefined;
let server: RunningServer | undefined;
let root = '';

beforeAll(async () => {
  if (!available) return;
  cluster = await startCluster();
  model = await startScriptedModel({
    script: [{ text: 'first answer' }, { text: 'answer after the restart' }],
  });
  root = mkdtempSync(join(tmpdir(), 'agentd-pg-restart-'));
  mkdirSync(join(root, 'work'));
  server = await startServer({
    port: 0,
    dataDir: join(root, 'data'),
    env: isolatedEnv(root, { ...model.env(), AGENTD_STORE_URL: cluster.url, AGENTD_LEASE_TTL_MS: '3000' }),
  });
});

afterAll(async () => {
  // Workers are detached and outlive the server: end them before their database goes away.
  const runtime = server?.runtime;
  for (const session of (await runtime?.listSessions().catch(() => [])) ?? []) {
    for (const execution of await runtime!.listExecutions(session.id)) {
      if (execution.pid !== null && isProcessAlive(execution.pid, execution.processStartTime))
        killGroup(execution.pid);
    }
  }
  await server?.close();
  await model?.close();
  cluster?.destroy();
  if (root) rmSync(root, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes, read field by field.
type Json = Record<string, any>;

async function api(path: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${server!.url}${path}`, {
    method: init.method ?? 'GET',
    headers: init.json === undefined ? {} : { 'content-type': 'application/json' },
    body: init.json === undefined ? null : JSON.stringify(init.json),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

describe.skipIf(!available)('PostgreSQL restarted under a running agentd serve', () => {
  it('while down: 503 store_unavailable and readiness failing; once back: the same server serves the session again', async () => {
    const created = await api('/v1/sessions', {
      method: 'POST',
      json: { prompt: 'turn one', cwd: join(root, 'work'), messageId: 'm-1' },
    });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id as string;
    const runtime = server!.runtime;
    await readUntil(runtime, sessionId, isEvent('work.settled'));
    expect((await api('/health/ready')).status).toBe(200);

    cluster!.kill();

    const ready = await api('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json.reasons).toContain('store unreachable');
    const listed = await api('/v1/sessions');
    expect(listed.status).toBe(503);
    expect(listed.json.error.code).toBe('store_unavailable');
    const refused = await api(`/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      json: { text: 'sent while down', messageId: 'm-down' },
    });
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe('store_unavailable');

    cluster!.start();

    await waitFor(async () => (await api('/health/ready')).status === 200, {
      what: 'readiness to come back',
    });
    const sent = await api(`/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      json: { text: 'turn two', messageId: 'm-2' },
    });
    expect(sent.status).toBeLessThan(300);
    const after = sent.json.input?.id as string;
    await waitFor(
      async () =>
        (await runtime.listInputs(sessionId)).find((input) => input.id === after)?.state === 'delivered',
      { what: 'turn two to be delivered after the restart', timeoutMs: 45_000 },
    );
    await waitFor(() => model!.conversationRequests().length === 2, { what: 'the model to be asked again' });
    const last = JSON.stringify(model!.conversationRequests().at(-1)?.body?.messages ?? []);
    expect(last).toContain('turn one');
    expect(last).toContain('first answer');
    expect(last).toContain('turn two');
    // The message sent while the database was down was refused, so it is not there.
    expect((await runtime.listInputs(sessionId)).map((input) => input.messageId)).toEqual(['m-1', 'm-2']);
    await checkGuarantees(runtime, sessionId, { acknowledged: ['m-1', 'm-2'], model: model! });
  });
});
