import { describe, expect, it } from 'vitest';
import { freshSchema, testPostgresUrl } from '../../../test/postgres/test-database.js';
import { PostgresStore } from './postgres-store.js';

const url = testPostgresUrl('postgres-leadership.test.ts');

async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(url === undefined)('PostgresLeadership', () => {
  it('leadership: of three nodes exactly one leads a duty; when it goes, another takes over', async () => {
    const schema = freshSchema();
    const stores = await Promise.all([0, 1, 2].map(() => PostgresStore.open({ url: url!, schema })));
    const duties = stores.map((store) => store.leadership('reconcile'));
    await Promise.all(duties.map((duty) => duty.ready()));
    expect(duties.filter((duty) => duty.leader)).toHaveLength(1);
    // Another duty has a leader of its own.
    const other = stores[0]!.leadership('a2a');
    await other.ready();
    expect(other.leader).toBe(true);

    const leader = duties.find((duty) => duty.leader)!;
    await leader.close();
    const rest = duties.filter((duty) => duty !== leader);
    // The others retry every 2 s; the lock is free as soon as the leader's session ended.
    await until(() => rest.some((duty) => duty.leader), 'another node to lead');
    expect(rest.filter((duty) => duty.leader)).toHaveLength(1);
    await Promise.all([...rest.map((duty) => duty.close()), other.close()]);
    await Promise.all(stores.map((store) => store.close()));
  });

  it("leadership: the same duty in another schema is another installation's, led separately", async () => {
    const [first, second] = await Promise.all([
      PostgresStore.open({ url: url!, schema: freshSchema() }),
      PostgresStore.open({ url: url!, schema: freshSchema() }),
    ]);
    const duties = [first!.leadership('reconcile'), second!.leadership('reconcile')];
    await Promise.all(duties.map((duty) => duty.ready()));
    expect(duties.map((duty) => duty.leader)).toEqual([true, true]);
    await Promise.all(duties.map((duty) => duty.close()));
    await Promise.all([first!.close(), second!.close()]);
  });
});
