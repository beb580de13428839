import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { DataPaths } from './data-dir.js';

/** The store for a data directory: SQLite in `agentd.db`. */
export async function openStore(paths: DataPaths, _env: Record<string, string | undefined>): Promise<Store> {
  return SqliteStore.open({ path: paths.database });
}
