import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { createApp } from './app.js';

let runtime: Runtime;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentd-app-'));
  runtime = await createRuntime({ dataDir, env: {} });
});

afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('createApp', () => {
  it('CORS: no headers unless origins are configured; then only for those origins', async () => {
    const closed = createApp({ runtime });
    const plain = await closed.request('/health/live', { headers: { origin: 'https://app.example' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();

    const open = createApp({ runtime, corsOrigins: ['https://app.example'], tokens: ['secret'] });
    const preflight = await open.request('/v1/sessions', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await open.request('/health/live', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('mountA2a: mounted routes sit behind authentication, the agent card stays public', async () => {
    const app = createApp({
      runtime,
      tokens: ['secret'],
      mountA2a: (hono) => {
        hono.get('/.well-known/agent-card.json', (c) => c.json({ name: 'agent' }));
        hono.post('/a2a', (c) => c.json({ ok: true }));
      },
    });
    expect((await app.request('/.well-known/agent-card.json')).status).toBe(200);
    expect((await app.request('/a2a', { method: 'POST' })).status).toBe(401);
    const authorized = await app.request('/a2a', {
      method: 'POST',
      headers: { authorization: 'Bearer secret' },
    });
    expect(authorized.status).toBe(200);
  });
});
