import {
  getSessionMessages,
  InMemorySessionStore,
  listSessions,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSdkSessionStore } from './session-store-adapter.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

const sessionId = '11111111-2222-4333-8444-555555555555';
const timestamp = '2026-11-30T10:00:00.000Z';

function conversation(dir: string): SessionStoreEntry[] {
  const common = {
    sessionId,
    timestamp,
    cwd: dir,
    isSidechain: false,
    userType: 'external',
    version: '2.1.332',
  };
  return [
    {
      ...common,
      type: 'user',
      uuid: 'aaaaaaaa-0000-4000-8000-000000000001',
      parentUuid: null,
      message: { role: 'user', content: 'What is in the README?' },
    },
    {
      ...common,
      type: 'assistant',
      uuid: 'aaaaaaaa-0000-4000-8000-000000000002',
      parentUuid: 'aaaaaaaa-0000-4000-8000-000000000001',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Install instructions.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 3 },
      },
    },
  ];
}

describe('toSdkSessionStore', () => {
  let store: SqliteStore;
  let adapter: SessionStore;

  beforeEach(() => {
    store = SqliteStore.open({ path: ':memory:' });
    adapter = toSdkSessionStore(store);
  });

  afterEach(async () => {
    await store.close();
  });

  it('SDK readers: listSessions and getSessionMessages read a transcript through the adapter', async () => {
    const dir = '/work/some-project';
    // Learn the projectKey the SDK derives from `dir` by asking it to list through a recording store.
    const projectKeys: string[] = [];
    const recording: SessionStore = {
      ...adapter,
      listSessions: async (projectKey) => {
        projectKeys.push(projectKey);
        return adapter.listSessions!(projectKey);
      },
    };
    expect(await listSessions({ dir, sessionStore: recording })).toEqual([]);
    const projectKey = projectKeys[0]!;

    await adapter.append({ projectKey, sessionId }, conversation(dir));
    const sessions = await listSessions({ dir, sessionStore: adapter });
    expect(sessions).toEqual([expect.objectContaining({ sessionId, firstPrompt: 'What is in the README?' })]);
    const messages = await getSessionMessages(sessionId, { dir, sessionStore: adapter });
    expect(messages.map((message) => [message.type, message.uuid])).toEqual([
      ['user', 'aaaaaaaa-0000-4000-8000-000000000001'],
      ['assistant', 'aaaaaaaa-0000-4000-8000-000000000002'],
    ]);
  });

  it("behaves like the SDK's InMemorySessionStore for append, load, list, subkeys and delete", async () => {
    const reference = new InMemorySessionStore();
    const main: SessionKey = { projectKey: 'project', sessionId: 's1' };
    const subagent: SessionKey = { ...main, subpath: 'subagents/agent-1' };
    const other: SessionKey = { projectKey: 'project', sessionId: 's2' };
    const steps: Array<(target: SessionStore) => Promise<void>> = [
      (target) => target.append(main, [{ type: 'user', uuid: 'u1', message: { content: 'hi' } }]),
      (target) =>
        target.append(subagent, [
          { type: 'assistant', uuid: 'a1' },
          { type: 'tag', tag: 'x' },
        ]),
      (target) => target.append(other, [{ type: 'custom-title', title: 'Other' }]),
      (target) => target.append(main, [{ type: 'assistant', uuid: 'u2', parentUuid: 'u1' }]),
    ];
    const observe = async (target: SessionStore) => ({
      main: await target.load(main),
      subagent: await target.load(subagent),
      missing: await target.load({ projectKey: 'project', sessionId: 'never' }),
      sessions: (await target.listSessions!('project')).map((item) => item.sessionId).sort(),
      subkeys: (await target.listSubkeys!(main)).sort(),
    });
    for (const step of steps) {
      await step(reference);
      await step(adapter);
      expect(await observe(adapter)).toEqual(await observe(reference));
    }
    for (const key of [subagent, main]) {
      await reference.delete(key);
      await adapter.delete!(key);
      expect(await observe(adapter)).toEqual(await observe(reference));
    }
  });

  it('append: a retried batch does not duplicate entries that carry a uuid', async () => {
    const key: SessionKey = { projectKey: 'project', sessionId };
    const batch = conversation('/work/p');
    await adapter.append(key, batch);
    await adapter.append(key, batch);
    await adapter.append(key, [{ type: 'summary', summary: 'no uuid' }]);
    expect(await adapter.load(key)).toEqual([...batch, { type: 'summary', summary: 'no uuid' }]);
  });
});
