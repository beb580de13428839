/**
 * Guarantee 7: credentials reach the child processes by environment only. A session with an
 * approval and an error runs through `agentd serve` (HTTP, and A2A once) and through the CLI with
 * a unique API key and server token; neither may appear in the data dir (SQLite file, WAL, logs),
 * in any event, in any HTTP response or in anything the server or the CLI prints.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../../src/testing/index.js';
import {
  type CliResult,
  createHarness,
  type Harness,
  isEvent,
  killWorkers,
  lastUserText,
  linesOf,
  readJournal,
  readUntil,
  runCli,
  spawnCli,
  waitFor,
} from './helpers.js';

const apiKey = `sk-ant-api03-canary-${randomUUID()}`;
const serverToken = `agentd-token-canary-${randomUUID()}`;
/** Each whole, and the random part alone: a secret cut short or wrapped is still a leak. */
const canaries = [apiKey, serverToken, apiKey.slice(-36), serverToken.slice(-36)];

/** Asked to touch a file: Bash `touch` (an approval); asked to fail: a 401, as for a bad key. */
function script(request: RecordedRequest): ScriptTurn {
  const last = request.body?.messages?.at(-1);
  const blocks = Array.isArray(last?.content) ? (last.content as Array<{ type?: string }>) : [];
  if (blocks.some((block) => block.type === 'tool_result')) return { text: 'touched it' };
  const said = lastUserText(request);
  if (said.includes('fail now')) return { error: { status: 401, message: 'invalid x-api-key' } };
  const file = /touch (\S+)/.exec(said)?.[1];
  if (file) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: `touch ${file}` } }] };
  return { text: 'hello' };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** Every file under `root`, read whole. */
function filesUnder(root: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

it('with an approval and an error, through HTTP and the CLI: the key and token are in no file, event, response or output', async () => {
  harness = await createHarness({
    script,
    env: { ANTHROPIC_API_KEY: apiKey, AGENTD_TOKENS: serverToken, AGENTD_IDLE_TIMEOUT_MS: '2000' },
  });
  const h = harness;
  /** Everything a user or an operator could read, by where it came from. */
  const seen: Array<{ where: string; text: string }> = [];
  const cli = async (...args: string[]): Promise<CliResult> => {
    const result = await runCli([...args, '--data-dir', h.dataDir], h.env);
    seen.push({
      where: `agentd ${args.join(' ')}`,
      text: `${result.code}\n${result.stdout}\n${result.stderr}`,
    });
    return result;
  };

  const server = h.track(spawnCli(['serve', '--port', '0', '--data-dir', h.dataDir], h.env));
  let serverErr = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    serverErr += chunk.toString('utf8');
  });
  const { lines: serverOut, closed: serverClosed } = linesOf(server);
  const url = await waitFor(() => serverOut.join('\n').match(/listening on (http:\/\/\S+)/)?.[1], {
    what: 'the server to listen',
  });
  const api = async (path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    seen.push({ where: `HTTP ${path}`, text: `${JSON.stringify([...response.headers])}\n${text}` });
    return text.startsWith('{') ? JSON.parse(text) : text;
  };
  const pendingOf = async (sessionId: string) => {
    const listed = (await api(`/v1/interactions?sessionId=${sessionId}&state=pending`)) as {
      interactions: Array<{ id: string }>;
    };
    return listed.interactions[0];
  };

  // Through HTTP: an approval, then a turn the model refuses as if the key were wrong.
  const created = (await api('/v1/sessions', { prompt: 'touch http.txt', cwd: h.cwd })) as {
    session: { id: string };
  };
  const httpSession = created.session.id;
  const httpApproval = await waitFor(() => pendingOf(httpSession), { what: 'the HTTP approval' });
  await api(`/v1/interactions/${httpApproval.id}/answer`, { decision: 'approve' });
  await readUntil(h.runtime, httpSession, isEvent('work.settled'));
  await api(`/v1/sessions/${httpSession}/messages`, { text: 'fail now', messageId: 'http-fail' });
  const httpError = await readUntil(h.runtime, httpSession, isEvent('agent.error'));
  const lastCursor = httpError.at(-1)!.cursor;
  await api(`/v1/sessions/${httpSession}/events?limit=1000`);
  await api(`/v1/sessions/${httpSession}`);
  await api('/v1/sessions');
  await api(`/v1/interactions?sessionId=${httpSession}`);
  await api('/health');
  await api('/metrics');
  // The live stream too, read up to the error.
  const stream = await fetch(`${url}/v1/sessions/${httpSession}/events/stream`, {
    headers: { authorization: `Bearer ${serverToken}` },
  });
  let streamed = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream.body!) {
    streamed += decoder.decode(chunk, { stream: true });
    if (streamed.includes(`id: ${lastCursor}\n`)) break;
  }
  seen.push({ where: 'HTTP events stream', text: streamed });

  // Through A2A on the same server: a blocking send the model answers.
  const a2aReply = (await api('/', {
    jsonrpc: '2.0',
    id: '1',
    method: 'message/send',
    params: {
      message: { messageId: 'a2a-1', role: 'user', parts: [{ kind: 'text', text: 'hello over a2a' }] },
    },
  })) as { result?: { status?: { state?: string } } };
  expect(a2aReply.result?.status?.state).toBe('completed');
  await api('/.well-known/agent-card.json');

  // Through the CLI: the same, by the commands a user types.
  const started = await cli('start', 'touch cli.txt', '--cwd', h.cwd);
  expect(started.code, started.stderr).toBe(0);
  const cliSession = started.stdout.trim();
  const cliApproval = await waitFor(
    async () => (JSON.parse((await cli('approvals', '--json')).stdout) as Array<{ id: string }>)[0],
    { what: 'the CLI approval' },
  );
  expect((await cli('approve', cliApproval.id)).code).toBe(0);
  await readUntil(h.runtime, cliSession, isEvent('work.settled'));
  expect((await cli('send', cliSession, 'fail now', '--message-id', 'cli-fail')).code).toBe(0);
  await readUntil(h.runtime, cliSession, isEvent('agent.error'));
  for (const args of [
    ['events', cliSession, '--json'],
    ['events', cliSession],
    ['events', httpSession, '--json'],
    ['show', cliSession],
    ['show', cliSession, '--json'],
    ['sessions', '--json'],
    ['approvals', '--all', '--json'],
  ]) {
    expect((await cli(...args)).code).toBe(0);
  }
  // The data dir by the environment: `run` may have no --data-dir.
  const run = await runCli(['run', 'fail now', '--cwd', h.cwd, '--json'], {
    ...h.env,
    AGENTD_DATA_DIR: h.dataDir,
  });
  seen.push({ where: 'agentd run', text: `${run.code}\n${run.stdout}\n${run.stderr}` });
  expect(run.code, run.stderr).toBe(3);

  // The key was in use: the model was sent it, by the workers' claude and the run's.
  expect(
    h.model.requests.filter((request) => request.headers['x-api-key'] === apiKey).length,
  ).toBeGreaterThan(3);
  // Journaled as the library reads it, every event of every session.
  for (const session of await h.runtime.listSessions({ limit: 1000 })) {
    seen.push({
      where: `journal of ${session.id}`,
      text: JSON.stringify(await readJournal(h.runtime, session.id)),
    });
  }
  // The data dir while the server runs (the WAL holds the newest pages), then once all stopped.
  const scanDataDir = (when: string) => {
    for (const file of filesUnder(h.dataDir))
      seen.push({ where: `${file.path} (${when})`, text: file.bytes.toString('latin1') });
  };
  scanDataDir('running');
  server.kill('SIGTERM');
  await serverClosed;
  for (const session of await h.runtime.listSessions({ limit: 1000 })) await h.runtime.stop(session.id);
  await killWorkers(h.dataDir);
  await h.runtime.close();
  scanDataDir('stopped');
  seen.push({ where: 'agentd serve output', text: `${serverOut.join('\n')}\n${serverErr}` });

  const leaks = seen.flatMap(({ where, text }) =>
    canaries.filter((canary) => text.includes(canary)).map((canary) => `${where}: ${canary}`),
  );
  expect(leaks).toEqual([]);
  // What was scanned is what the test means to cover: the session's error and answer are in it.
  const everything = seen.map(({ text }) => text).join('\n');
  expect(everything).toContain('agent.error');
  expect(everything).toContain('interaction.answered');
  expect(seen.some(({ where }) => where.endsWith('agentd.db-wal (running)'))).toBe(true);
  expect(seen.some(({ where }) => where.includes('/logs/') && where.endsWith('.log (stopped)'))).toBe(true);
});
