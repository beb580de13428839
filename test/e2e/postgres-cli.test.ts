/**
 * The CLI on a shared PostgreSQL store: `--store` on a runtime verb reads what another node wrote;
 * a URL of no known store is a usage error, an unreachable database a failure with a clear message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testPostgresUrl } from '../postgres/test-database.js';
import { runCli } from './helpers.js';
import { type Cluster, createCluster } from './postgres-nodes.js';

const url = testPostgresUrl('postgres-cli.test.ts');

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.cleanup();
  cluster = undefined;
});

describe.skipIf(url === undefined)('agentd --store', () => {
  it('sessions --store URL: a node with its own data directory lists the sessions another node created', async () => {
    cluster = await createCluster({ url: url!, script: [] });
    const a = await cluster.node('a').openRuntime();
    const { session } = await a.createSession({ cwd: cluster.cwd });
    // Node B's environment names no store: the flag alone points it at the database.
    const b = cluster.node('b');
    const { AGENTD_STORE_URL: _unused, ...env } = b.env;
    const listed = await runCli(
      ['sessions', '--store', cluster.storeUrl, '--data-dir', b.dataDir, '--json'],
      env,
    );
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((each) => each.id)).toEqual([session.id]);
    // Without the flag, the same node has its own (empty) SQLite store.
    const local = await runCli(['sessions', '--data-dir', b.dataDir, '--json'], env);
    expect(JSON.parse(local.stdout)).toEqual([]);
  });

  it('sessions --store: a URL of no known store is a usage error; an unreachable database a failure', async () => {
    cluster = await createCluster({ url: url!, script: [] });
    const b = cluster.node('b');
    const { AGENTD_STORE_URL: _unused, ...env } = b.env;
    const wrong = await runCli(['sessions', '--store', 'mysql://db/agentd', '--data-dir', b.dataDir], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('is not a postgres://');
    const down = await runCli(
      ['sessions', '--store', 'postgres://agentd:secret-pw@127.0.0.1:1/agentd', '--data-dir', b.dataDir],
      env,
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('unreachable');
    // The password is not printed.
    expect(down.stderr).not.toContain('secret-pw');
  });
});
