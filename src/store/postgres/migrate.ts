import { StoreError } from '../../errors/agentd-error.js';
import { migrations } from './migrations.js';
import { type PostgresConnection, type PostgresExecutor, quoteIdentifier } from './postgres-connection.js';

const APPLICATION = 'agentd';

/** The schema version this build writes. */
export const SCHEMA_VERSION = migrations.length;

/**
 * Creates the schema when missing and applies the migrations it has not run yet, in one
 * transaction under a transaction-scoped advisory lock: of several nodes starting together, one
 * migrates and the others wait, then find nothing left to do. Refuses a schema that holds another
 * program's tables (`store_foreign`) or was written by a newer agentd (`store_too_new`), leaving it
 * untouched.
 */
export async function migrate(connection: PostgresConnection): Promise<void> {
  await connection.write(async (executor) => {
    await executor.run("SELECT pg_advisory_xact_lock(hashtext('agentd.migrate'), hashtext($1))", [
      connection.schema,
    ]);
    await executor.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(connection.schema)}`);
    let version = await inspectSchema(executor, connection);
    if (version === null) {
      await executor.run('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      await executor.run(
        "INSERT INTO meta (key, value) VALUES ('application', $1), ('schema_version', '0')",
        [APPLICATION],
      );
      version = 0;
    }
    for (; version < SCHEMA_VERSION; version += 1) {
      await executor.run(migrations[version]!);
      await executor.run("UPDATE meta SET value = $1 WHERE key = 'schema_version'", [String(version + 1)]);
    }
  });
}

/** The schema's agentd version, or null when it holds no tables at all. */
async function inspectSchema(
  executor: PostgresExecutor,
  connection: PostgresConnection,
): Promise<number | null> {
  const tables = (
    await executor.rows('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [
      connection.schema,
    ])
  ).map((row) => String(row.tablename));
  if (tables.length === 0) {
    return null;
  }
  const foreign = new StoreError({
    code: 'store_foreign',
    message: `${connection.description} holds another program's tables, not agentd's (tables: ${tables
      .slice(0, 5)
      .join(', ')})`,
  });
  if (!tables.includes('meta')) {
    throw foreign;
  }
  const rows = await executor.rows(
    "SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')",
  );
  const meta = new Map(rows.map((row) => [String(row.key), String(row.value)]));
  if (meta.get('application') !== APPLICATION) {
    throw foreign;
  }
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 0) {
    throw new StoreError({
      code: 'store_corrupt',
      message: `${connection.description} has a schema_version that is not a number`,
    });
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreError({
      code: 'store_too_new',
      message: `${connection.description} has agentd schema version ${version}, newer than ${SCHEMA_VERSION} that this agentd knows; upgrade agentd to open it`,
    });
  }
  return version;
}
