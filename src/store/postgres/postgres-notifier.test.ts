import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBin, type PostgresCluster, startCluster } from '../../../test/postgres/cluster.js';
import { freshSchema, testPostgresUrl } from '../../../test/postgres/test-database.js';
import { PostgresStore } from './postgres-store.js';

const url = testPostgresUrl('postgres-notifier.test.ts');

/** Resolves with the first value `listen` reports, or fails after `ms`. */
function nextValue<T>(listen: (report: (value: T) => void) => () => void, ms = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`nothing reported within ${ms} ms`));
    }, ms);
    const stop = listen((value) => {
      clearTimeout(timer);
      stop();
      resolve(value);
    });
  });
}

async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const newSession = { provider: 'claude', cwd: '/p', config: {}, now: 1 };

describe.skipIf(url === undefined)('PostgresNotifier', () => {
  it('watch: an append on one node wakes the watchers of another with the session id', async () => {
    const schema = freshSchema();
    const [writer, reader] = await Promise.all([
      PostgresStore.open({ url: url!, schema }),
      PostgresStore.open({ url: url!, schema }),
    ]);
    await writer.createSession({ id: 's1', ...newSession });
    const woken = nextValue<string | null>((report) => reader.changes.watch('events', report));
    await until(() => reader.changes.crossProcess, 'the LISTEN connection');
    await writer.appendEvents('s1', [{ type: 'a', data: {} }], { now: 1 });
    expect(await woken).toBe('s1');
    const input = nextValue<string | null>((report) => reader.changes.watch('inputs', report));
    await writer.addInput({ id: 'i1', sessionId: 's1', messageId: 'm1', text: 'hi', now: 1 });
    expect(await input).toBe('s1');
    await Promise.all([writer.close(), reader.close()]);
  });

  it("watch: this node's own writes wake its watchers at once, without the database", async () => {
    const store = await PostgresStore.open({ url: url!, schema: freshSchema() });
    await store.createSession({ id: 's1', ...newSession });
    const seen: Array<string | null> = [];
    const stop = store.changes.watch('events', (sessionId) => seen.push(sessionId));
    const appending = store.appendEvents('s1', [{ type: 'a', data: {} }], { now: 1 });
    await appending;
    // Synchronously after the commit, before any NOTIFY could have come back.
    expect(seen[0]).toBe('s1');
    stop();
    await store.close();
  });
});

const restartable = url !== undefined && findPostgresBin() !== null;

describe.skipIf(!restartable)('PostgresNotifier across a server restart', () => {
  let cluster: PostgresCluster | undefined;
  afterAll(() => cluster?.destroy());

  it('watch: after the server restarts it LISTENs again, wakes everyone once, then carries notifications again', async () => {
    cluster = await startCluster();
    const [writer, reader] = await Promise.all([
      PostgresStore.open({ url: cluster.url }),
      PostgresStore.open({ url: cluster.url }),
    ]);
    await writer.createSession({ id: 's1', ...newSession });
    const seen: Array<string | null> = [];
    const stop = reader.changes.watch('events', (sessionId) => seen.push(sessionId));
    await until(() => reader.changes.crossProcess, 'the LISTEN connection');

    cluster.kill();
    await until(() => !reader.changes.crossProcess, 'the LISTEN connection to notice');
    const refused = await writer
      .appendEvents('s1', [{ type: 'a', data: {} }], { now: 1 })
      .catch((error) => error);
    expect(refused.code).toBe('store_unavailable');
    cluster.start();

    await until(() => reader.changes.crossProcess, 'the LISTEN connection to come back');
    await until(() => seen.includes(null), 'the wake-everyone after the reconnect');
    seen.length = 0;
    await writer.appendEvents('s1', [{ type: 'b', data: {} }], { now: 2 });
    await until(() => seen.includes('s1'), 'a notification after the restart');
    expect((await reader.readEvents('s1')).map((event) => event.type)).toEqual(['b']);
    stop();
    await Promise.all([writer.close(), reader.close()]);
  });
});
