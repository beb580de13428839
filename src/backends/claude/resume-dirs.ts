import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';

/**
 * The SDK resumes a session from a transcript store by writing it, with copies of the user's
 * config and credentials, into `$TMPDIR/claude-resume-*`, the `claude`'s `CLAUDE_CONFIG_DIR`. It
 * removes that directory only once `claude` has exited, asynchronously: a worker that exits with
 * its `claude` leaves it behind, one transcript copy per resume. The ones this process's `claude`s
 * use are kept here and removed when their `claude` exits, or all at once as the process leaves.
 */
const live = new Set<string>();

/** The SDK resume directory a `claude` started with `env` uses, if any. */
export function resumeDirOf(env: Record<string, string | undefined>): string | undefined {
  const dir = env.CLAUDE_CONFIG_DIR;
  if (!dir) return undefined;
  const full = resolve(dir);
  return dirname(full) === resolve(tmpdir()) && basename(full).startsWith('claude-resume-')
    ? full
    : undefined;
}

/** Keeps `dir` to be removed by `removeResumeDir` or `removeResumeDirs`. */
export function trackResumeDir(dir: string): void {
  live.add(dir);
}

/** Removes one resume directory (its `claude` has exited); one that resists is kept for `removeResumeDirs`. */
export function removeResumeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
  } catch {
    // Left for the system's temporary-file cleanup if it resists again.
  }
}

/** Removes every resume directory still kept: for a process about to exit, its `claude`s with it. */
export function removeResumeDirs(): void {
  for (const dir of [...live]) removeResumeDir(dir);
}
