import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSdkSessionStore } from '../../store/session-store-adapter.js';
import { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { CodexThreads, rolloutProjectKey } from './codex-threads.js';

// The rollout sync against a real SQLite file and real files in a CODEX_HOME. The lines are in the
// shape codex 0.163.0 writes (checked against its rollouts, 0145); what codex does with a restored
// file is tested end to end in test/e2e/codex-threads.test.ts.

const threadId = '01a2347d-7a25-7122-8913-81a44afcd7a5';
const meta = JSON.stringify({
  timestamp: '2026-12-02T02:02:48.386Z',
  type: 'session_meta',
  payload: {
    id: threadId,
    timestamp: '2026-12-02T02:02:48.235Z',
    cwd: '/work',
    note: 'ünïcödé \u2028 "quoted"',
  },
});
const context = (model: string) => JSON.stringify({ type: 'turn_context', payload: { model } });
const tokens = (input: number, cached: number, output: number) =>
  JSON.stringify({
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output },
      },
    },
  });

let root: string;
let store: SqliteStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentd-codex-threads-'));
  store = SqliteStore.open({ path: join(root, 'agentd.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function home(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function writeRollout(codexHome: string, lines: string[], partial = ''): string {
  const dir = join(codexHome, 'sessions', '2026', '12', '02');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-12-02T02-02-48-${threadId}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n${partial}`);
  return path;
}

const storedLines = async () =>
  (await store.loadTranscript({ projectKey: rolloutProjectKey, sessionId: threadId }))?.map(
    (entry) => entry.line,
  );

describe('CodexThreads', () => {
  it('save: the rollout’s complete lines go to the store once each; a line still being written waits', async () => {
    const codexHome = home('a');
    const threads = new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) });
    const path = writeRollout(codexHome, [meta, context('gpt-5.4')], '{"type":"event_ms');
    await threads.save(threadId);
    expect(await storedLines()).toEqual([meta, context('gpt-5.4')]);
    appendFileSync(path, `g"}\n${tokens(10, 0, 5)}\n`);
    await threads.save(threadId);
    await threads.save(threadId);
    expect(await storedLines()).toEqual([meta, context('gpt-5.4'), '{"type":"event_msg"}', tokens(10, 0, 5)]);
    // A new CodexThreads (another worker) counts what the store already has.
    appendFileSync(path, `${context('gpt-5.5')}\n`);
    const next = new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) });
    await next.save(threadId);
    expect((await storedLines())?.length).toBe(5);
    expect(next.model(threadId)).toBe('gpt-5.5');
  });

  it('restore: a CODEX_HOME without the thread gets its rollout where codex would have put it, byte for byte', async () => {
    const first = home('first');
    const lines = [meta, context('gpt-5.4'), tokens(1000, 400, 100)];
    const written = readFileSync(writeRollout(first, lines), 'utf8');
    await new CodexThreads({ env: { CODEX_HOME: first }, storage: toSdkSessionStore(store) }).save(threadId);

    const other = home('other');
    const threads = new CodexThreads({ env: { CODEX_HOME: other }, storage: toSdkSessionStore(store) });
    const usage = await threads.restore(threadId);
    expect(usage).toEqual({ input_tokens: 1000, cached_input_tokens: 400, output_tokens: 100 });
    const day = join(other, 'sessions', '2026', '12', '02');
    expect(readdirSync(day)).toEqual([`rollout-2026-12-02T02-02-48-${threadId}.jsonl`]);
    expect(readFileSync(join(day, readdirSync(day)[0]!), 'utf8')).toBe(written);
    expect(threads.model(threadId)).toBe('gpt-5.4');
  });

  it('restore: a file behind the store is brought up to date; one ahead of it (not saved yet) is left alone', async () => {
    const codexHome = home('a');
    const full = [meta, context('gpt-5.4'), tokens(10, 0, 5)];
    const path = writeRollout(codexHome, full);
    await new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) }).save(
      threadId,
    );

    writeRollout(codexHome, full.slice(0, 1));
    await new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) }).restore(
      threadId,
    );
    expect(readFileSync(path, 'utf8')).toBe(`${full.join('\n')}\n`);

    const ahead = [...full, tokens(20, 0, 9)];
    writeRollout(codexHome, ahead);
    const threads = new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) });
    expect((await threads.restore(threadId)).output_tokens).toBe(9);
    expect(readFileSync(path, 'utf8')).toBe(`${ahead.join('\n')}\n`);
  });

  it('restore: a file that another node has since continued differently is replaced by the store’s', async () => {
    const codexHome = home('a');
    const shared = [meta, context('gpt-5.4')];
    const path = writeRollout(codexHome, [...shared, tokens(10, 0, 5)]);
    // Node B continued the thread from the stored prefix; this node's file has a turn B never saw.
    await store.appendTranscript(
      { projectKey: rolloutProjectKey, sessionId: threadId },
      [...shared, tokens(30, 0, 7), context('gpt-5.5')].map((line) => ({ type: 'codex.rollout_line', line })),
    );
    writeRollout(codexHome, [...shared, tokens(10, 0, 5), tokens(20, 0, 6), tokens(25, 0, 6), context('x')]);
    const threads = new CodexThreads({ env: { CODEX_HOME: codexHome }, storage: toSdkSessionStore(store) });
    expect((await threads.restore(threadId)).output_tokens).toBe(7);
    expect(readFileSync(path, 'utf8')).toBe(
      `${[...shared, tokens(30, 0, 7), context('gpt-5.5')].join('\n')}\n`,
    );
    await threads.save(threadId);
    expect((await storedLines())?.length).toBe(4);
  });

  it('without a store: nothing is saved or restored, the local rollout still tells usage and model', async () => {
    const codexHome = home('a');
    writeRollout(codexHome, [meta, context('gpt-5.4'), tokens(7, 1, 2)]);
    const threads = new CodexThreads({ env: { CODEX_HOME: codexHome } });
    expect(await threads.restore(threadId)).toEqual({
      input_tokens: 7,
      cached_input_tokens: 1,
      output_tokens: 2,
    });
    await threads.save(threadId);
    expect(threads.model(threadId)).toBe('gpt-5.4');
    expect(await storedLines()).toBeUndefined();
    expect(await new CodexThreads({ env: { CODEX_HOME: home('b') } }).restore('no-such-thread')).toEqual({
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
    });
  });
});
