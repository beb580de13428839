import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshSchema, testPostgresUrl } from '../../../test/postgres/test-database.js';
import { StoreError } from '../../errors/agentd-error.js';
import { runStoreContract } from '../store-contract.js';
import { SCHEMA_VERSION } from './migrate.js';
import { PostgresStore } from './postgres-store.js';

const url = testPostgresUrl('postgres-store.test.ts');

async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.skipIf(url === undefined)('PostgresStore', () => {
  // The contract passes every time explicitly, so it runs with the callers' clock.
  runStoreContract({
    name: 'postgres',
    createStore: async () => PostgresStore.open({ url: url!, schema: freshSchema(), leaseClock: 'caller' }),
  });

  it('open: several nodes opening a new schema at once migrate it exactly once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => PostgresStore.open({ url: url!, schema })),
    );
    const meta = await adminQuery(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`);
    expect(meta.rows).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await stores[0]!.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    expect((await stores[5]!.getSession('s1'))?.id).toBe('s1');
    await Promise.all(stores.map((store) => store.close()));
  });

  it("open: a schema holding another program's tables is store_foreign and is left alone", async () => {
    const schema = freshSchema();
    await adminQuery(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".orders (id int)`);
    const error = await PostgresStore.open({ url: url!, schema }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('store_foreign');
    const tables = await adminQuery(`SELECT tablename FROM pg_tables WHERE schemaname = '${schema}'`);
    expect(tables.rows).toEqual([{ tablename: 'orders' }]);
  });

  it('open: a schema of a newer agentd is store_too_new', async () => {
    const schema = freshSchema();
    await (await PostgresStore.open({ url: url!, schema })).close();
    await adminQuery(
      `UPDATE "${schema}".meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`,
    );
    const error = await PostgresStore.open({ url: url!, schema }).catch((caught: unknown) => caught);
    expect((error as StoreError).code).toBe('store_too_new');
  });

  it('open: an unreachable server is store_unavailable', async () => {
    const error = await PostgresStore.open({
      url: 'postgres://postgres@127.0.0.1:1/postgres',
      schema: freshSchema(),
      connectTimeoutMs: 2_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('store_unavailable');
  });

  it("leases: with the database clock, expiry comes from the server, not from the caller's now", async () => {
    const store = await PostgresStore.open({ url: url!, schema: freshSchema() });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    const { rows } = await adminQuery(
      'SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now',
    );
    const serverNow = Number(rows[0].now);
    // A caller whose clock is a day behind still gets a lease timed by the server.
    const lease = await store.acquireLease({
      sessionId: 's1',
      owner: 'node-a',
      ttlMs: 60_000,
      pid: 1,
      processStartTime: null,
      now: Date.now() - 86_400_000,
    });
    expect(lease?.expiresAt).toBeGreaterThanOrEqual(serverNow + 60_000);
    expect(lease?.expiresAt).toBeLessThan(serverNow + 60_000 + 30_000);
    // A caller whose clock runs a day ahead cannot take the live lease early.
    const early = await store.acquireLease({
      sessionId: 's1',
      owner: 'node-b',
      ttlMs: 60_000,
      pid: 2,
      processStartTime: null,
      now: Date.now() + 86_400_000,
    });
    expect(early).toBeNull();
    await store.close();
  });

  it('leases: with the database clock, a lease that lapsed on the server is taken over', async () => {
    const store = await PostgresStore.open({ url: url!, schema: freshSchema() });
    await store.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    const options = { sessionId: 's1', pid: 1, processStartTime: null, now: 0 };
    expect((await store.acquireLease({ ...options, owner: 'node-a', ttlMs: 50 }))?.epoch).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await store.acquireLease({ ...options, owner: 'node-b', ttlMs: 10_000 }))?.epoch).toBe(2);
    expect(await store.renewLease({ sessionId: 's1', epoch: 1, ttlMs: 10_000, now: 0 })).toBe(false);
    await store.close();
  });

  it('appendEvents: writers on two nodes get one gap-free cursor sequence', async () => {
    const schema = freshSchema();
    const [first, second] = await Promise.all([
      PostgresStore.open({ url: url!, schema }),
      PostgresStore.open({ url: url!, schema }),
    ]);
    await first!.createSession({ id: 's1', provider: 'claude', cwd: '/p', config: {}, now: 1 });
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? first! : second!).appendEvents(
          's1',
          [
            { type: 'a', data: { index } },
            { type: 'b', data: { index } },
          ],
          { now: 1 },
        ),
      ),
    );
    const cursors = (await second!.readEvents('s1')).map((event) => event.cursor);
    expect(cursors).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(await first!.lastCursor('s1')).toBe(40);
    await Promise.all([first!.close(), second!.close()]);
  });
});
