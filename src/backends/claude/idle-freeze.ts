import { readdirSync, readFileSync } from 'node:fs';

/**
 * Stops an idle `claude` (SIGSTOP) and continues it (SIGCONT) before anything is sent to it, so
 * that a live session between turns uses no CPU at all: an idle `claude` polls its config file
 * and runs its timers (~0.4% of a core each). A stopped process keeps its memory, its pipes and
 * its conversation; continuing it takes microseconds. Only a process with nothing under way is
 * stopped: no turn, no background task it reported, no child process (a shell, an MCP server).
 * See decision 0137.
 */
export class IdleFreezer {
  private pid: number | undefined;
  private frozen = false;
  private timer: NodeJS.Timeout | undefined;

  /** @param afterMs how long a process stays idle before it is stopped; 0 or less = never */
  constructor(private readonly afterMs: number) {}

  /** The process to stop from now on (a new query's `claude`). */
  attach(pid: number | undefined): void {
    this.thaw();
    this.pid = pid;
  }

  /** The process is idle from now: stop it after `afterMs` if `mayStop()` still says so then. */
  idle(mayStop: () => boolean): void {
    this.cancel();
    if (this.afterMs <= 0 || this.pid === undefined) return;
    const pid = this.pid;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pid !== pid || this.frozen || !mayStop() || hasChildren(pid)) return;
      if (signal(pid, 'SIGSTOP')) this.frozen = true;
    }, this.afterMs);
    this.timer.unref();
  }

  /** Before anything is written to the process, or it is closed: it runs again. */
  thaw(): void {
    this.cancel();
    if (!this.frozen) return;
    this.frozen = false;
    if (this.pid !== undefined) signal(this.pid, 'SIGCONT');
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    // Gone already: nothing to stop or continue.
    return false;
  }
}

/** Whether any thread of `pid` has a child process (Linux's /proc/PID/task/TID/children). */
function hasChildren(pid: number): boolean {
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      if (readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim() !== '') return true;
    }
    return false;
  } catch {
    // No /proc (not Linux), or the process is gone: never stop what cannot be checked.
    return true;
  }
}
