import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The data directory: `--data-dir`, else AGENTD_DATA_DIR, else $XDG_STATE_HOME/agentd, else
 * ~/.local/state/agentd. It holds conversation content: keep it private. Always absolute: workers
 * run in the data dir itself, where a relative path would name another folder.
 */
export function resolveDataDir(
  explicit?: string,
  env: Record<string, string | undefined> = process.env,
): string {
  if (explicit) return resolve(explicit);
  if (env.AGENTD_DATA_DIR) return resolve(env.AGENTD_DATA_DIR);
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return resolve(state, 'agentd');
}

export interface DataPaths {
  root: string;
  database: string;
  logs: string;
  /** The content-addressed skill blobs (src/skills). */
  skills: string;
}

export function dataPaths(root: string): DataPaths {
  return { root, database: join(root, 'agentd.db'), logs: join(root, 'logs'), skills: join(root, 'skills') };
}

export function ensureDataDir(root: string): DataPaths {
  const paths = dataPaths(root);
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 });
  return paths;
}
