import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * A process is identified by host, PID and start time, so that a PID reused by another process
 * after a worker died is not mistaken for the worker. The start time is field 22 of
 * /proc/PID/stat (clock ticks since boot).
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTime = fields[19];
    return startTime === undefined ? null : `${hostname()}:${startTime}`;
  } catch {
    return null;
  }
}

/** True when the identity names a process on another host, whose liveness only its lease can tell. */
export function isRemote(identity: string): boolean {
  return !identity.startsWith(`${hostname()}:`);
}

/** Whether the process with this PID and start time (as recorded) is still running here. */
export function isProcessAlive(pid: number, recordedStartTime: string | null): boolean {
  if (recordedStartTime !== null && isRemote(recordedStartTime)) return true;
  const current = processStartTime(pid);
  if (current === null) return false;
  if (recordedStartTime === null) return true;
  if (current !== recordedStartTime) return false;
  // A zombie (exited, not yet reaped by its parent) still has a /proc entry.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Ends what is left of a dead worker's process group (its `claude` and the tools it ran), which
 * would otherwise finish the turn on its own. Only when the group's leader, the worker, is gone: a
 * live process with that PID is someone else's, and so is its group.
 */
export function killOrphanedGroup(pid: number): number {
  const leader = processStartTime(pid);
  if (leader !== null && isProcessAlive(pid, leader)) return 0;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Field 5 of /proc/PID/stat is the process group.
      if (Number(fields[2]) !== pid) continue;
      process.kill(Number(entry), 'SIGKILL');
      killed++;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return killed;
}
