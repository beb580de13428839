/**
 * The runtime's checks as HTTP clients meet them: one credentials check on every path that starts
 * a worker (503 credentials_missing), and a cwd that must be an existing directory (400).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { createHarness, type Harness, isEvent, readJournal, readUntil, waitFor } from './helpers.js';

let harness: Harness | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await harness?.cleanup();
  harness = undefined;
});

function withoutCredentials(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^(ANTHROPIC_|CLAUDE_CODE_OAUTH|CLAUDE_CODE_USE_)/.test(name)),
  );
}

interface ErrorResponse {
  status: number;
  body: { error: { code: string; message: string } };
}

async function post(url: string, body: unknown): Promise<ErrorResponse> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as ErrorResponse['body'] };
}

describe('http: checks that live in the runtime', { timeout: 120_000 }, () => {
  it('POST /v1/sessions with a cwd that is not an existing directory: 400 invalid_input, nothing created', async () => {
    harness = await createHarness({ script: [] });
    server = await startServer({ port: 0, dataDir: harness.dataDir, env: harness.env, a2a: false });
    for (const cwd of ['../../etc/passwd', join(harness.cwd, 'missing'), '/etc/passwd']) {
      const response = await post(`${server.url}/v1/sessions`, { prompt: 'hi', cwd });
      expect(response.status, cwd).toBe(400);
      expect(response.body.error.code).toBe('invalid_input');
      expect(response.body.error.message).toContain('not an existing directory');
    }
    expect(await server.runtime.listSessions()).toEqual([]);
    expect(harness.model.requests).toHaveLength(0);
  });

  it('messages and resume on a server without credentials: 503 credentials_missing, nothing journaled', async () => {
    harness = await createHarness({ script: [{ text: 'first answer' }] });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'hi', cwd: h.cwd });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    await h.runtime.stop(session.id);
    // The execution is marked stopped a moment before its last event is journaled: wait for the event.
    await readUntil(h.runtime, session.id, isEvent('execution.stopped'));
    await waitFor(async () => (await h.runtime.liveExecution(session.id)) === null, { what: 'the stop' });
    const before = await readJournal(h.runtime, session.id);

    server = await startServer({ port: 0, dataDir: h.dataDir, env: withoutCredentials(h.env), a2a: false });
    const sent = await post(`${server.url}/v1/sessions/${session.id}/messages`, { text: 'again' });
    const resumed = await post(`${server.url}/v1/sessions/${session.id}/resume`, {});
    for (const response of [sent, resumed]) {
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('credentials_missing');
      expect(response.body.error.message).toContain('ANTHROPIC_API_KEY');
    }
    expect(await readJournal(h.runtime, session.id)).toEqual(before);
  });
});
