/**
 * The PostgreSQL server of the test run (see test/postgres-setup.ts) and a fresh schema per store,
 * so tests in parallel never see each other's rows.
 */
import pg from 'pg';
import { afterAll } from 'vitest';

const url = process.env.AGENTD_TEST_POSTGRES_URL || undefined;

/**
 * The server's URL. Without one, throws in CI (`CI` set: the PostgreSQL tests must run there) and
 * returns undefined elsewhere, after printing why the file's tests are skipped.
 */
export function testPostgresUrl(file: string): string | undefined {
  if (url !== undefined) return url;
  const reason = `no PostgreSQL for ${file}: set AGENTD_TEST_POSTGRES_URL or apt-get install postgresql`;
  if (process.env.CI) {
    throw new Error(`${reason} (CI is set, so these tests must run)`);
  }
  console.warn(`SKIPPED: ${reason}`);
  return undefined;
}

let counter = 0;
const schemas: string[] = [];

/** A schema name not used before in this run; dropped after the file's tests. */
export function freshSchema(prefix = 't'): string {
  counter += 1;
  const name = `${prefix}_${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(name);
  return name;
}

afterAll(async () => {
  if (url === undefined || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    for (const schema of schemas.splice(0)) {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  } finally {
    await client.end().catch(() => {});
  }
});
