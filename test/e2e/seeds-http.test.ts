/**
 * Seed runs through the HTTP API of `agentd serve --offline`: the example seed (examples/) runs
 * with the demo model, the real SDK and `claude`, and agentd's own check decides.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { killWorkers, repoRoot, waitFor } from './helpers.js';
import { isolatedEnv } from './isolated-env.js';

let root: string;
let server: RunningServer;
let work: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentd-seeds-http-'));
  work = join(root, 'work');
  mkdirSync(work);
  server = await startServer({ port: 0, dataDir: join(root, 'data'), env: isolatedEnv(root), offline: true });
});

afterAll(async () => {
  await server?.close();
  await killWorkers(join(root, 'data'));
  rmSync(root, { recursive: true, force: true });
});

interface RunJson {
  runId: string;
  state: string;
  iteration: number;
  criteria: Array<Record<string, unknown>>;
}

/** Every response body this file reads, as one shape: each test reads the fields of its route. */
interface ApiBody {
  run: RunJson;
  runs: RunJson[];
  events: Array<{ type: string }>;
  error: { code: string; message: string };
  properties: Record<string, unknown>;
}

async function api(path: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json' },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  return { status: response.status, body: (await response.json()) as ApiBody };
}

describe('seeds over HTTP', () => {
  it('POST /v1/seeds: the example seed runs offline to satisfied; its checks are in the session’s events', async () => {
    const text = readFileSync(join(repoRoot, 'examples', 'demo-seed.yaml'), 'utf8');
    const started = await api('/v1/seeds', { json: { seed: text, cwd: work } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run.runId as string;
    const run = await waitFor(
      async () => {
        const { body } = await api(`/v1/seeds/${runId}`);
        return body.run.state !== 'running' ? body.run : null;
      },
      { what: 'the run to end', timeoutMs: 60_000 },
    );
    expect(run).toMatchObject({ state: 'satisfied', iteration: 1 });
    expect(run.criteria[0]).toMatchObject({ id: 'demo-file', state: 'verified', met: true });
    const events = await api(`/v1/sessions/${runId}/events`);
    const types = events.body.events.map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(['seed.started', 'seed.iteration', 'seed.check', 'seed.finished']),
    );
    const list = await api('/v1/seeds');
    expect(list.body.runs.map((each) => each.runId)).toContain(runId);
    const again = await api(`/v1/seeds/${runId}/resume`, { json: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('POST /v1/seeds: a bad seed is a 400 naming the field and line, and starts nothing', async () => {
    const before = (await api('/v1/seeds')).body.runs.length;
    const bad = await api('/v1/seeds', {
      json: { seed: 'goal: x\ncriteria:\n  - id: a\n    description: d\n    timeout: soon\n', cwd: work },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_input',
      message: 'criteria[0].timeout: expected a number, got string, line 5',
    });
    const object = await api('/v1/seeds', { json: { seed: { goal: 'x', criteria: [] }, cwd: work } });
    expect(object.status).toBe(400);
    expect(object.body.error.message).toBe('criteria: expected at least one criterion');
    const relative = await api('/v1/seeds', {
      json: { seed: { goal: 'x', criteria: [{ id: 'a', description: 'd' }] }, cwd: 'work' },
    });
    expect(relative.status).toBe(400);
    expect(relative.body.error.message).toBe('cwd: expected an absolute directory, got "work"');
    expect((await api('/v1/seeds')).body.runs).toHaveLength(before);
    expect((await api('/v1/seeds/nope')).status).toBe(404);
    const schema = await api('/v1/seeds/schema');
    expect(schema.body.properties).toHaveProperty('criteria');
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/v1/seeds', '/v1/seeds/{id}', '/v1/seeds/{id}/resume', '/v1/seeds/{id}/stop']),
    );
  });
});
