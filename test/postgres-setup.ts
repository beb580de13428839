/**
 * Vitest global setup: gives the PostgreSQL tests a server. `AGENTD_TEST_POSTGRES_URL` set (as
 * `.ci/run` does) is used as is; otherwise, when PostgreSQL is installed, a private cluster is
 * started for the run and stopped after it. With neither, the PostgreSQL test files fail in CI
 * (`CI` set) and skip with a printed reason elsewhere (test/postgres/test-database.ts).
 */
import { findPostgresBin, type PostgresCluster, startCluster } from './postgres/cluster.js';

let cluster: PostgresCluster | undefined;

export async function setup(): Promise<void> {
  if (process.env.AGENTD_TEST_POSTGRES_URL) {
    return;
  }
  if (findPostgresBin() === null) {
    return;
  }
  cluster = await startCluster();
  process.env.AGENTD_TEST_POSTGRES_URL = cluster.url;
}

export function teardown(): void {
  cluster?.destroy();
  cluster = undefined;
}
