import { describe, expect, it } from 'vitest';
import { freshSchema, testPostgresUrl } from '../../../test/postgres/test-database.js';
import { runA2aStoreContract } from '../a2a-store-contract.js';
import { PostgresA2aStore } from './postgres-a2a-store.js';
import { PostgresStore } from './postgres-store.js';

const url = testPostgresUrl('postgres-a2a-store.test.ts');

describe.skipIf(url === undefined)('PostgresA2aStore', () => {
  runA2aStoreContract({
    name: 'postgres',
    createStore: async () => PostgresA2aStore.open({ url: url!, schema: freshSchema() }),
  });

  it('open: shares the schema with the PostgresStore open on it', async () => {
    const schema = freshSchema();
    const [store, a2a] = await Promise.all([
      PostgresStore.open({ url: url!, schema }),
      PostgresA2aStore.open({ url: url!, schema }),
    ]);
    await a2a.saveA2aTask({
      id: 'task-1',
      contextId: 'context-1',
      state: 'TASK_STATE_WORKING',
      statusTimestamp: '2026-01-01T00:00:00.000Z',
      task: { id: 'task-1' },
      now: 1,
    });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    await Promise.all([a2a.close(), store.close()]);
    const reopened = await PostgresA2aStore.open({ url: url!, schema });
    expect((await reopened.getA2aTask('task-1'))?.task).toEqual({ id: 'task-1' });
    await reopened.close();
  });
});
