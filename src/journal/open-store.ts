import { ConfigError } from '../errors/agentd-error.js';
import type { A2aStore } from '../store/a2a-store.js';
import { SqliteA2aStore } from '../store/sqlite/sqlite-a2a-store.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { DataPaths } from './data-dir.js';

/** The variable naming a shared store; workers inherit it from their runtime. */
export const storeUrlVariable = 'AGENTD_STORE_URL';

/**
 * The store a URL names: `postgres://` or `postgresql://` (a shared PostgreSQL database), or `sqlite:PATH`.
 * Undefined or empty: none was chosen, the data directory's SQLite file is used.
 */
export type StoreLocation =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; schema?: string };

export function storeLocation(paths: DataPaths, url: string | undefined): StoreLocation {
  if (url === undefined || url === '') {
    return { kind: 'sqlite', path: paths.database };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    // `?schema=NAME` is agentd's, not libpq's: several agentd installations may share one database.
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    return { kind: 'postgres', url: parsed.toString(), ...(schema ? { schema } : {}) };
  }
  if (url.startsWith('sqlite:')) {
    return { kind: 'sqlite', path: url.slice('sqlite:'.length) || paths.database };
  }
  throw new ConfigError(
    `the store ${JSON.stringify(redact(url))} is not a postgres://, postgresql:// or sqlite: URL`,
    { store: redact(url) },
  );
}

export interface OpenStoreOptions {
  /**
   * On SQLite, wake this process's readers on other processes' commits (see SqliteChangeFeed); a
   * worker opens without, since the runtime on its host signals it. @default true
   */
  watchOthers?: boolean;
  /**
   * On SQLite, how long a write waits for another process's lock before failing with `store_busy`.
   * @default 5000
   */
  busyTimeoutMs?: number;
}

/** The store for a data directory: `AGENTD_STORE_URL` when set, else SQLite in `agentd.db`. */
export async function openStore(
  paths: DataPaths,
  env: Record<string, string | undefined>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const location = storeLocation(paths, env[storeUrlVariable]);
  if (location.kind === 'sqlite') {
    return SqliteStore.open({
      path: location.path,
      ...(options.watchOthers === false ? { watchOthers: false } : {}),
      ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    });
  }
  // Loaded only when chosen: a SQLite node never loads pg.
  const { PostgresStore } = await import('../store/postgres/postgres-store.js');
  return PostgresStore.open({ url: location.url, ...(location.schema ? { schema: location.schema } : {}) });
}

/** The A2A store beside the core store: same database, same choice. */
export async function openA2aStore(
  paths: DataPaths,
  env: Record<string, string | undefined>,
): Promise<A2aStore> {
  const location = storeLocation(paths, env[storeUrlVariable]);
  if (location.kind === 'sqlite') {
    return SqliteA2aStore.open({ path: location.path });
  }
  const { PostgresA2aStore } = await import('../store/postgres/postgres-a2a-store.js');
  return PostgresA2aStore.open({
    url: location.url,
    ...(location.schema ? { schema: location.schema } : {}),
  });
}

/** A URL fit for messages: the password left out. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':@');
  }
}
