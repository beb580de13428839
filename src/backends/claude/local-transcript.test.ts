import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeConfigDir, preferLocalTranscript } from './local-transcript.js';

const key = { projectKey: '-work-project', sessionId: '0b0c6a3e-8f0a-4b61-9f54-1c8a3b5d2e7f' };
let configDir: string;
let stored: SessionStoreEntry[] | null;
const store: SessionStore = {
  append: async () => {},
  load: async () => stored,
};
const path = () => join(configDir, 'projects', key.projectKey, `${key.sessionId}.jsonl`);
const lines = (entries: object[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'agentd-local-transcript-'));
  mkdirSync(join(configDir, 'projects', key.projectKey), { recursive: true });
  stored = [
    { type: 'user', uuid: 'a', message: 'hello' },
    { type: 'assistant', uuid: 'b', message: 'hi' },
  ];
});
afterEach(() => rmSync(configDir, { recursive: true, force: true }));

describe('preferLocalTranscript', () => {
  const load = () => preferLocalTranscript(store, configDir).load(key);

  it("answers nothing when claude's own transcript ends as the store's does, from its last uuid entry", async () => {
    // claude writes lines the store never gets (its request records): only the tail must agree.
    writeFileSync(path(), lines([stored![0]!, { type: 'api-request', id: 1 }, stored![1]!]));
    expect(await load()).toBeNull();
  });

  it('is not fooled by an entry that repeats word for word at the end of each turn', async () => {
    const latch = { type: 'atis-latch', atis: '' };
    stored = [...stored!, latch];
    writeFileSync(path(), lines(stored));
    expect(await load(), 'the same turns').toBeNull();
    // Another node's turn since: the store ends with the same latch, after new entries.
    stored = [
      ...stored!,
      latch,
      { type: 'user', uuid: 'c', message: 'more' },
      { type: 'assistant', uuid: 'd' },
      latch,
    ];
    expect(await load()).toEqual(stored);
  });

  it('agrees whatever the key order (a JSONB store reorders keys)', async () => {
    writeFileSync(path(), lines([stored![0]!, { message: 'hi', uuid: 'b', type: 'assistant' }]));
    expect(await load()).toBeNull();
  });

  it("gives the store's entries when the local copy is missing, behind, past it or unreadable", async () => {
    expect(await load()).toEqual(stored);
    writeFileSync(path(), lines([stored![0]!]));
    expect(await load(), 'behind').toEqual(stored);
    appendFileSync(path(), lines([stored![1]!, { type: 'user', uuid: 'c', message: 'more' }]));
    expect(await load(), 'past').toEqual(stored);
    writeFileSync(path(), `${lines(stored!)}{"type":"user","uui`);
    expect(await load(), 'a torn last line').toEqual(stored);
    writeFileSync(path(), '');
    expect(await load(), 'empty').toEqual(stored);
  });

  it('reads a last line longer than its read chunk, with characters split across chunks', async () => {
    const long = { type: 'assistant', uuid: 'b', message: `${'é'.repeat(70_000)}🍑${'x'.repeat(65_537)}` };
    stored = [stored![0]!, long];
    writeFileSync(path(), `${lines(stored)}\n\n`);
    expect(await load()).toBeNull();
  });

  it('passes a store with nothing, and subagent transcripts, through as they are', async () => {
    writeFileSync(path(), lines(stored!));
    expect(
      await preferLocalTranscript(store, configDir).load({ ...key, subpath: 'subagents/agent-1' }),
    ).toEqual(stored);
    stored = null;
    expect(await load()).toBeNull();
  });
});

describe('claudeConfigDir', () => {
  it('is CLAUDE_CONFIG_DIR, else ~/.claude of the given HOME', () => {
    expect(claudeConfigDir({ CLAUDE_CONFIG_DIR: '/c', HOME: '/h' })).toBe('/c');
    expect(claudeConfigDir({ HOME: '/h' })).toBe('/h/.claude');
  });
});
