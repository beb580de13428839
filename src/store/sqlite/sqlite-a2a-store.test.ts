import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runA2aStoreContract } from '../a2a-store-contract.js';
import { SqliteA2aStore } from './sqlite-a2a-store.js';
import { SqliteStore } from './sqlite-store.js';

const directories: string[] = [];

function temporaryPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-sqlite-a2a-'));
  directories.push(directory);
  return join(directory, 'agentd.db');
}

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

runA2aStoreContract({
  name: 'sqlite',
  createStore: async () => SqliteA2aStore.open({ path: temporaryPath() }),
});

describe('SqliteA2aStore', () => {
  it('open: shares the data file with the SqliteStore open on it', async () => {
    const path = temporaryPath();
    const store = SqliteStore.open({ path });
    const a2a = SqliteA2aStore.open({ path });
    await a2a.saveA2aTask({
      id: 'task-1',
      contextId: 'context-1',
      state: 'TASK_STATE_WORKING',
      statusTimestamp: '2026-01-01T00:00:00.000Z',
      task: { id: 'task-1' },
      now: 1,
    });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    await a2a.close();
    await store.close();
    const reopened = SqliteA2aStore.open({ path });
    expect((await reopened.getA2aTask('task-1'))?.task).toEqual({ id: 'task-1' });
    await reopened.close();
  });
});
