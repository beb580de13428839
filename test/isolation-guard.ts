/**
 * Vitest global setup: fails the run loudly when a test wrote where tests must not write, the
 * real home directory (claude's `~/.claude`, agentd's default data dir) or the checkout.
 *
 * Every temporary directory of the run is made under one folder of its own (TMPDIR is set for
 * the test processes, which inherit it), so whatever a test left in the real home can be told
 * apart from what the developer's own `claude` and `agentd` write there meanwhile.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { resolveDataDir } from '../src/journal/data-dir.js';

const repoRoot = resolve(import.meta.dirname, '..');

interface Watch {
  runDir: string;
  startedAt: number;
  claudeProjects: string;
  dataDir: string;
  dataDirExisted: boolean;
}

let watch: Watch | undefined;

export function setup(): void {
  const runDir = mkdtempSync(join(tmpdir(), 'agentd-test-'));
  const dataDir = resolveDataDir(undefined, process.env);
  watch = {
    runDir,
    // A second early: file times have coarser steps than Date.now() on some filesystems.
    startedAt: Date.now() - 1000,
    claudeProjects: join(process.env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude'), 'projects'),
    dataDir,
    dataDirExisted: existsSync(dataDir),
  };
  process.env.TMPDIR = runDir;
}

export function teardown(): void {
  if (!watch) return;
  const leaks = [...claudeTranscripts(watch), ...agentdSessions(watch), ...checkoutFiles(watch)];
  rmSync(watch.runDir, { recursive: true, force: true });
  if (leaks.length > 0) {
    // Vitest reports an error thrown here but still exits 0: set the exit code too.
    process.exitCode = 1;
    throw new Error(
      `tests wrote outside their temporary directories (give each process an isolatedEnv and a --cwd):\n  ${leaks.join('\n  ')}`,
    );
  }
}

/** claude names a transcript folder after its cwd, every character but letters and digits as `-`. */
function claudeTranscripts({ claudeProjects, runDir }: Watch): string[] {
  if (!existsSync(claudeProjects)) return [];
  const marker = runDir.replace(/[^a-zA-Z0-9]/g, '-');
  return readdirSync(claudeProjects)
    .filter((name) => name.includes(marker))
    .map((name) => join(claudeProjects, name));
}

/** Sessions created during the run, in the shell's data dir, for a test folder or the checkout. */
function agentdSessions({ dataDir, dataDirExisted, runDir, startedAt }: Watch): string[] {
  if (!existsSync(dataDir)) return [];
  if (!dataDirExisted) return [`${dataDir} (created during the run)`];
  const database = join(dataDir, 'agentd.db');
  if (!existsSync(database)) return [];
  let rows: Array<{ id: string; cwd: string }>;
  try {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      rows = db
        .prepare<[number], { id: string; cwd: string }>('SELECT id, cwd FROM sessions WHERE created_at >= ?')
        .all(startedAt);
    } finally {
      db.close();
    }
  } catch {
    // Not a data file this version can read: nothing of this run's is in it.
    return [];
  }
  return rows
    .filter((row) => row.cwd.startsWith(runDir) || row.cwd.startsWith(repoRoot))
    .map((row) => `${database}: session ${row.id} (cwd ${row.cwd})`);
}

/**
 * New files made during the run at the top of the checkout or in its `.claude/`: where an agent
 * or a CLI started in the checkout writes. (Sources a developer adds meanwhile go deeper.)
 */
function checkoutFiles({ startedAt }: Watch): string[] {
  let listing: string;
  try {
    listing = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
  } catch {
    // Not a git checkout (an unpacked release): nothing to compare with.
    return [];
  }
  return listing
    .split('\0')
    .filter((path) => path.length > 0 && (!path.includes('/') || path.startsWith('.claude/')))
    .filter((path) => {
      try {
        return lstatSync(join(repoRoot, path)).mtimeMs >= startedAt;
      } catch {
        return false;
      }
    })
    .map((path) => join(repoRoot, path));
}
