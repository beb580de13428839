/**
 * Webhooks through `agentd serve` (HTTP API, CLI), real sessions on the real `claude` against the
 * scripted model, and a real HTTP receiver: a receiver that is down and comes back gets every
 * delivery once, with stable ids; one that keeps failing is disabled with a reason; the
 * verification snippet of docs/run-control.md (run as it is written there) accepts a genuine
 * delivery and rejects a tampered or replayed one.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { SqliteStore } from '../../src/store/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { isolatedEnv, killWorkers, repoRoot, runCli, waitFor } from './helpers.js';

const secret = 'whsec-test-5b1f0c2e9d7a4b38a6c1';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on a fixed port, that can be down (not listening) or answer with `status`. */
class Receiver {
  readonly received: Received[] = [];
  status = 200;
  #server: Server | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  static async onFreePort(): Promise<Receiver> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return new Receiver(port);
  }

  async up(): Promise<void> {
    this.#server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        this.received.push({ headers: request.headers, body });
        response.writeHead(this.status).end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The verification function exactly as docs/run-control.md shows it. */
async function documentedVerifier(directory: string) {
  const doc = readFileSync(join(repoRoot, 'docs', 'run-control.md'), 'utf8');
  const snippet = /```js\n(\/\/ verify-agentd-webhook\n[\s\S]*?)```/.exec(doc)?.[1];
  if (!snippet) throw new Error('docs/run-control.md has no verify-agentd-webhook snippet');
  const file = join(directory, 'verify-agentd-webhook.mjs');
  writeFileSync(file, snippet);
  const module = (await import(pathToFileURL(file).href)) as {
    verifyAgentdWebhook(options: {
      secret: string;
      headers: Record<string, string | string[] | undefined>;
      body: string;
      toleranceSeconds?: number;
      now?: number;
    }): boolean;
  };
  return module.verifyAgentdWebhook;
}

interface Setup {
  root: string;
  cwd: string;
  server: RunningServer;
  receiver: Receiver;
  env: Record<string, string | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in assertions
  api(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; json: any }>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function setup(options: { disableAfter?: number; script: Array<{ text: string }> }): Promise<Setup> {
  const root = mkdtempSync(join(tmpdir(), 'agentd-webhooks-'));
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  const model = await startScriptedModel({ script: options.script });
  const env = isolatedEnv(root, { ...model.env(), HOOK_SECRET: secret });
  const receiver = await Receiver.onFreePort();
  const dataDir = join(root, 'data');
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    env,
    a2a: false,
    webhooks: {
      pollMs: 50,
      backoffMs: 100,
      maxBackoffMs: 400,
      maxAttempts: 1000,
      disableAfter: options.disableAfter ?? 1000,
    },
  });
  cleanups.push(async () => {
    await receiver.down();
    await killWorkers(dataDir);
    await server.close();
    await model.close();
    rmSync(root, { recursive: true, force: true });
  });
  const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      ...(init.body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  return { root, cwd, server, receiver, env, api };
}

async function addWebhook(s: Setup, events: string[]): Promise<string> {
  const added = await s.api('/v1/webhooks', {
    body: { url: s.receiver.url, events, secretEnv: 'HOOK_SECRET' },
  });
  expect(added.status).toBe(201);
  expect(JSON.stringify(added.json)).not.toContain(secret);
  return added.json.webhook.id;
}

async function startSession(s: Setup, prompt: string): Promise<string> {
  const created = await s.api('/v1/sessions', { body: { prompt, messageId: `m-${prompt}`, cwd: s.cwd } });
  expect(created.status).toBe(201);
  return created.json.session.id;
}

type DeliveryDetails = {
  delivery: {
    id: string;
    state: string;
    attempts: number;
    lastError: string | null;
    sessionId: string;
    type: string;
  };
  attempts: Array<{ attempt: number; ok: boolean; status: number | null; error: string | null }>;
};

async function deliveriesOf(s: Setup, webhookId: string): Promise<DeliveryDetails[]> {
  return (await s.api(`/v1/webhooks/${webhookId}/deliveries`)).json.deliveries;
}

describe('webhooks', () => {
  it('a receiver that is down and comes back: deliveries are retried from the store, then delivered once each with stable ids', async () => {
    const s = await setup({ script: [{ text: 'first done' }, { text: 'second done' }] });
    const webhookId = await addWebhook(s, ['work.settled']);
    const sessions = [await startSession(s, 'one'), await startSession(s, 'two')];

    // Down: each delivery is attempted again and again, every attempt recorded.
    const failing = await waitFor(
      async () => {
        const deliveries = await deliveriesOf(s, webhookId);
        return deliveries.length === 2 && deliveries.every((d) => d.attempts.length >= 2)
          ? deliveries
          : undefined;
      },
      { what: 'two deliveries retried at least twice', timeoutMs: 60_000 },
    );
    expect(new Set(failing.map((d) => d.delivery.sessionId))).toEqual(new Set(sessions));
    for (const { delivery, attempts } of failing) {
      expect(delivery).toMatchObject({ state: 'pending', type: 'work.settled', lastError: 'ECONNREFUSED' });
      expect(attempts.every((attempt) => !attempt.ok && attempt.status === null)).toBe(true);
    }
    expect(s.receiver.received).toEqual([]);

    await s.receiver.up();
    const delivered = await waitFor(
      async () => {
        const deliveries = await deliveriesOf(s, webhookId);
        return deliveries.every((d) => d.delivery.state === 'delivered') ? deliveries : undefined;
      },
      { what: 'both delivered', timeoutMs: 30_000 },
    );
    const ids = delivered.map((d) => d.delivery.id).sort();
    const receivedIds = s.receiver.received.map((request) => request.headers['webhook-id']).sort();
    expect(receivedIds).toEqual(ids);
    const verify = await documentedVerifier(s.root);
    for (const request of s.receiver.received) {
      const body = JSON.parse(request.body);
      expect(body.id).toBe(request.headers['webhook-id']);
      expect(body).toMatchObject({ type: 'work.settled', organization: 'default' });
      expect(sessions).toContain(body.sessionId);
      expect(verify({ secret, headers: request.headers, body: request.body })).toBe(true);
    }
    for (const { delivery, attempts } of delivered) {
      expect(attempts.at(-1)).toMatchObject({ ok: true, status: 200, error: null });
      expect(attempts.slice(0, -1).every((attempt) => !attempt.ok)).toBe(true);
      expect(delivery.attempts).toBe(attempts.length);
    }

    // The CLI shows the same deliveries and attempts.
    const listed = await runCli(
      ['webhook', 'deliveries', webhookId, '--json', '--data-dir', s.server.dataDir],
      s.env,
    );
    expect(
      JSON.parse(listed.stdout)
        .deliveries.map((d: DeliveryDetails) => d.delivery.id)
        .sort(),
    ).toEqual(ids);
    // The secret is in no row of the store.
    const path = (s.server.runtime.store as SqliteStore).path;
    for (const file of [path, `${path}-wal`].filter(existsSync))
      expect(readFileSync(file).includes(Buffer.from(secret))).toBe(false);
  });

  it('a receiver that keeps failing is disabled with a reason, and is sent nothing more', async () => {
    const s = await setup({ disableAfter: 3, script: [{ text: 'done' }] });
    s.receiver.status = 500;
    await s.receiver.up();
    const webhookId = await addWebhook(s, ['work.settled', 'session.failed']);
    await startSession(s, 'fails');
    const disabled = await waitFor(
      async () => {
        const { json } = await s.api(`/v1/webhooks/${webhookId}`);
        return json.webhook.state === 'disabled' && json.webhook;
      },
      { what: 'the webhook disabled', timeoutMs: 60_000 },
    );
    expect(disabled.disabledReason).toContain('3 failed attempts in a row');
    expect(disabled.disabledReason).toContain('HTTP 500');
    expect(s.receiver.received).toHaveLength(3);
    const [details] = await deliveriesOf(s, webhookId);
    expect(details!.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500]);
    expect(details!.delivery.state).toBe('pending');

    const shown = await runCli(['webhook', 'show', webhookId, '--data-dir', s.server.dataDir], s.env);
    expect(shown.stdout).toContain('disabled: disabled after 3 failed attempts in a row (last: HTTP 500)');

    // Enabled again with a working receiver, the waiting delivery goes out.
    s.receiver.status = 204;
    const enabled = await s.api(`/v1/webhooks/${webhookId}/enable`, { method: 'POST' });
    expect(enabled.json.webhook).toMatchObject({ state: 'active', failures: 0, disabledReason: null });
    await waitFor(async () => (await deliveriesOf(s, webhookId))[0]!.delivery.state === 'delivered', {
      what: 'the delivery after enable',
    });
    expect(s.receiver.received).toHaveLength(4);
    expect(new Set(s.receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it('the documented verification snippet accepts a genuine delivery and rejects a tampered signature, body or replay', async () => {
    const s = await setup({ script: [{ text: 'signed' }] });
    await s.receiver.up();
    await addWebhook(s, ['work.settled']);
    await startSession(s, 'sign');
    await waitFor(() => s.receiver.received.length > 0, { what: 'a delivery', timeoutMs: 60_000 });
    const { headers, body } = s.receiver.received[0]!;
    const verify = await documentedVerifier(s.root);
    expect(verify({ secret, headers, body })).toBe(true);

    const signature = String(headers['webhook-signature']);
    const flipped = `v1,${Buffer.from(Buffer.from(signature.slice(3), 'base64').map((byte, index) => (index === 0 ? byte ^ 1 : byte))).toString('base64')}`;
    expect(verify({ secret, headers: { ...headers, 'webhook-signature': flipped }, body })).toBe(false);
    expect(verify({ secret, headers, body: body.replace('"work.settled"', '"seed.finished"') })).toBe(false);
    expect(verify({ secret: 'another-secret', headers, body })).toBe(false);
    // A replay: the same request a day later, or with its timestamp moved (which breaks the signature).
    expect(verify({ secret, headers, body, now: Date.now() + 86_400_000 })).toBe(false);
    const moved = String(Number(headers['webhook-timestamp']) + 60);
    expect(verify({ secret, headers: { ...headers, 'webhook-timestamp': moved }, body })).toBe(false);
    expect(verify({ secret, headers: { ...headers, 'webhook-signature': undefined }, body })).toBe(false);
  });

  it('bad subscriptions are refused with a stable code and change nothing', async () => {
    const s = await setup({ script: [] });
    const cases: unknown[] = [
      { url: 'ftp://example.com/x', events: ['work.settled'], secretEnv: 'HOOK_SECRET' },
      { url: s.receiver.url, events: ['no.such'], secretEnv: 'HOOK_SECRET' },
      { url: s.receiver.url, events: [], secretEnv: 'HOOK_SECRET' },
      { url: s.receiver.url, events: ['work.settled'], secretEnv: 'not a name' },
    ];
    for (const body of cases) {
      const refused = await s.api('/v1/webhooks', { body });
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('invalid_input');
    }
    expect((await s.api('/v1/webhooks')).json.webhooks).toEqual([]);
    expect((await s.api('/v1/webhooks/nope')).json.error.code).toBe('not_found');
  });
});
