import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../errors/agentd-error.js';
import { runStoreContract } from '../store-contract.js';
import { migrations } from './migrations.js';
import { SqliteStore } from './sqlite-store.js';

const directories: string[] = [];

function temporaryPath(name = 'agentd.db'): string {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-sqlite-'));
  directories.push(directory);
  return join(directory, name);
}

afterAll(() => {
  for (const directory of directories) {
    rmSync(directory, { recursive: true, force: true });
  }
});

runStoreContract({
  name: 'sqlite',
  createStore: async () => SqliteStore.open({ path: temporaryPath() }),
});

function openError(path: string): StoreError {
  try {
    SqliteStore.open({ path }).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error(`expected opening ${path} to fail`);
}

describe('SqliteStore', () => {
  it('open: runs in WAL mode with synchronous=FULL, foreign keys and a busy timeout', async () => {
    const store = SqliteStore.open({ path: temporaryPath() });
    expect(store.pragma('journal_mode')).toBe('wal');
    expect(store.pragma('synchronous')).toBe(2); // FULL
    expect(store.pragma('foreign_keys')).toBe(1);
    expect(store.pragma('busy_timeout')).toBe(5000);
    await store.close();
  });

  it('open: creates the file and its missing directories', async () => {
    const path = join(temporaryPath(), 'nested', 'deeper', 'agentd.db');
    const store = SqliteStore.open({ path });
    await store.ping();
    await store.close();
    expect(readFileSync(path).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  });

  it('open: an empty existing file becomes a new store', async () => {
    const path = temporaryPath();
    writeFileSync(path, '');
    const store = SqliteStore.open({ path });
    expect(await store.listSessions()).toEqual([]);
    await store.close();
  });

  it('reopen: everything written before close is there after open', async () => {
    const path = temporaryPath();
    const first = SqliteStore.open({ path });
    const { session } = await first.createSession({
      id: 's1',
      provider: 'claude',
      cwd: '/p',
      config: { a: [1, 2] },
      launchId: 'l1',
      now: 1,
    });
    const lease = await first.acquireLease({
      sessionId: 's1',
      owner: 'w1',
      ttlMs: 1_000,
      pid: 1,
      processStartTime: '5',
      now: 1,
    });
    const execution = await first.createExecution({ id: 'e1', sessionId: 's1', now: 1 });
    const { input } = await first.addInput({
      id: 'i1',
      sessionId: 's1',
      messageId: 'm1',
      text: 'hi',
      now: 1,
    });
    const events = await first.appendEvents(
      's1',
      [
        { type: 'a', data: { x: 1 } },
        { type: 'b', data: [] },
      ],
      {
        epoch: 1,
        now: 2,
      },
    );
    const interaction = await first.createInteraction({
      id: 'q1',
      sessionId: 's1',
      executionId: 'e1',
      kind: 'question',
      toolName: 'AskUserQuestion',
      toolUseId: 't1',
      request: { questions: [] },
      createdAt: 3,
    });
    await first.appendTranscript({ projectKey: 'p', sessionId: 'n1' }, [{ type: 'user', uuid: 'u1' }]);
    await first.close();

    const second = SqliteStore.open({ path });
    expect(await second.getSession('s1')).toEqual(session);
    expect(await second.getLease('s1')).toEqual(lease);
    expect(await second.getExecution('e1')).toEqual(execution);
    expect(await second.getInput('s1', 'm1')).toEqual(input);
    expect(await second.readEvents('s1')).toEqual(events);
    expect(await second.getInteraction('q1')).toEqual(interaction);
    expect(await second.loadTranscript({ projectKey: 'p', sessionId: 'n1' })).toEqual([
      { type: 'user', uuid: 'u1' },
    ]);
    // Cursors and epochs continue where they were.
    const [next] = await second.appendEvents('s1', [{ type: 'c', data: null }], { epoch: 1, now: 4 });
    expect(next?.cursor).toBe(3);
    await second.releaseLease({ sessionId: 's1', epoch: 1 });
    await second.close();
    const third = SqliteStore.open({ path });
    const again = await third.acquireLease({
      sessionId: 's1',
      owner: 'w2',
      ttlMs: 1_000,
      pid: 2,
      processStartTime: null,
      now: 5,
    });
    expect(again?.epoch).toBe(2);
    await third.close();
  });

  it('open: random bytes are store_corrupt, naming the file, and the file is left as it was', () => {
    const path = temporaryPath();
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256));
    writeFileSync(path, garbage);
    const error = openError(path);
    expect(error.code).toBe('store_corrupt');
    expect(error.message).toContain(path);
    expect(error.message).toContain('not an agentd data file');
    expect(readFileSync(path).equals(garbage)).toBe(true);
  });

  it('open: a text file is store_corrupt', () => {
    const path = temporaryPath('notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n');
    expect(openError(path).code).toBe('store_corrupt');
  });

  it('open: a SQLite header followed by garbage is store_corrupt with the SQLite error as cause', () => {
    const path = temporaryPath();
    const body = Buffer.alloc(8192, 0xab);
    writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), body]));
    const error = openError(path);
    expect(error.code).toBe('store_corrupt');
    expect(error.message).toContain(path);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('open: another program’s SQLite database is store_foreign and is not modified', () => {
    const path = temporaryPath('app.db');
    const foreign = new Database(path);
    foreign.exec(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')",
    );
    foreign.close();
    const before = readFileSync(path);
    const error = openError(path);
    expect(error.code).toBe('store_foreign');
    expect(error.message).toContain(path);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('open: a meta table of another application is store_foreign', () => {
    const path = temporaryPath();
    const foreign = new Database(path);
    foreign.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('application', 'other')",
    );
    foreign.close();
    expect(openError(path).code).toBe('store_foreign');
  });

  it('open: a schema version newer than this build is store_too_new and is not modified', async () => {
    const path = temporaryPath();
    const store = SqliteStore.open({ path });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/', config: {}, now: 1 });
    await store.close();
    const raw = new Database(path);
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(migrations.length + 1));
    raw.close();
    const before = readFileSync(path);
    const error = openError(path);
    expect(error.code).toBe('store_too_new');
    expect(error.message).toContain(String(migrations.length + 1));
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('open: a file at schema version 0 is migrated to the current version', async () => {
    const path = temporaryPath();
    const raw = new Database(path);
    raw.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT; INSERT INTO meta VALUES ('application', 'agentd'), ('schema_version', '0')",
    );
    raw.close();
    const store = SqliteStore.open({ path });
    expect(await store.listSessions()).toEqual([]);
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(migrations.length),
    });
    check.close();
  });

  it('open: a file at schema version 2 (before organizations) is migrated; its sessions read back', async () => {
    const path = temporaryPath();
    const raw = new Database(path);
    raw.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT; INSERT INTO meta VALUES ('application', 'agentd'), ('schema_version', '2')",
    );
    for (const migration of migrations.slice(0, 2)) {
      raw.exec(migration);
    }
    raw
      .prepare(
        `INSERT INTO sessions (id, state, provider, role, model, cwd, config, launch_id, native_session_id, title,
           last_cursor, created_at, updated_at)
         VALUES ('old', 'active', 'env', 'reviewer', 'claude-sonnet-4-5', '/p', '{"a":1}', 'l-old', 'n-old', 'Old',
           1, 10, 20)`,
      )
      .run();
    raw
      .prepare(
        `INSERT INTO events (session_id, cursor, type, data, execution_id, created_at)
         VALUES ('old', 1, 'agent.turn.completed', '{"costUsd":3}', NULL, 15)`,
      )
      .run();
    raw.close();

    const store = SqliteStore.open({ path });
    expect(await store.getSession('old')).toEqual({
      id: 'old',
      state: 'active',
      provider: 'env',
      organization: null,
      role: 'reviewer',
      roleVersion: null,
      model: 'claude-sonnet-4-5',
      cwd: '/p',
      costUsd: 0,
      config: { a: 1 },
      launchId: 'l-old',
      nativeSessionId: 'n-old',
      title: 'Old',
      createdAt: 10,
      updatedAt: 20,
    });
    // New costs add to the migrated session; the new tables work.
    await store.appendEvents('old', [{ type: 'agent.turn.completed', data: { costUsd: 0.5 } }], { now: 30 });
    expect(await store.spend({ sessionId: 'old' })).toBeCloseTo(0.5);
    await store.ensureOrganization({ id: 'acme', now: 30 });
    expect((await store.createRole({ organization: 'acme', name: 'reviewer', now: 30 })).version).toBe(1);
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(migrations.length),
    });
    check.close();
  });

  it('reopen: the organization’s data is there after open', async () => {
    const path = temporaryPath();
    const first = SqliteStore.open({ path });
    const { provider } = await first.putProvider({
      name: 'openrouter',
      kind: 'openrouter',
      baseUrl: 'https://openrouter.ai/api',
      secret: { env: 'OPENROUTER_API_KEY' },
      models: { sonnet: 'anthropic/claude-sonnet-4.6' },
      now: 1,
    });
    await first.ensureOrganization({ id: 'acme', now: 1 });
    const role = await first.createRole({
      organization: 'acme',
      name: 'reviewer',
      tools: ['Read'],
      userSkills: true,
      turnBudgetUsd: 0.25,
      now: 2,
    });
    const { channel } = await first.bindChannel({
      key: 'c1',
      organization: 'acme',
      project: 'web',
      role: 'reviewer',
      now: 3,
    });
    await first.setChannelSession({ key: 'c1', role: 'reviewer', sessionId: 's1' });
    const grant = await first.addGrant({
      id: 'g1',
      principal: 'bot',
      action: 'admin',
      resource: '*',
      now: 4,
    });
    await first.setBudget({ scope: 'organization', target: 'acme', limitUsd: 12.5, now: 5 });
    await first.close();

    const second = SqliteStore.open({ path });
    expect(await second.getProvider('openrouter')).toEqual(provider);
    expect(await second.getOrganization('acme')).toMatchObject({ defaultRole: 'reviewer' });
    expect(await second.getRole('acme', 'reviewer')).toEqual(role);
    expect(await second.getChannel('c1')).toEqual(channel);
    expect(await second.getChannelSession('c1', 'reviewer')).toBe('s1');
    expect(await second.listGrants()).toEqual([grant]);
    expect(await second.getBudget('organization', 'acme')).toMatchObject({ limitUsd: 12.5 });
    await second.close();
  });

  it('read: a damaged row is store_corrupt, not a raw parse error', async () => {
    const path = temporaryPath();
    const store = SqliteStore.open({ path });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/', config: {}, now: 1 });
    await store.appendEvents('s1', [{ type: 'a', data: 1 }], { now: 1 });
    const raw = new Database(path);
    raw.prepare("UPDATE events SET data = '{not json' WHERE session_id = 's1'").run();
    raw.close();
    await expect(store.readEvents('s1')).rejects.toMatchObject({ code: 'store_corrupt' });
    await store.close();
  });

  it('close: later calls fail with store_closed', async () => {
    const store = SqliteStore.open({ path: temporaryPath() });
    await store.close();
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ code: 'store_closed' });
  });
});
