/** What the benchmarks read from /proc: process trees, proportional memory and CPU time. */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux x64). */
const ticksPerSecond = 100;

function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Every process below `pid`, from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(statFields(Number(entry))?.[1] ?? Number.NaN);
    if (!Number.isFinite(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** Proportional set size of one process in MiB (shared pages divided among their users), 0 when gone. */
export function pssMib(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * Memory only this process maps (Private_Clean + Private_Dirty) in MiB, 0 when gone. Unlike PSS it
 * does not move with how many other processes share the `node` executable's pages.
 */
export function privateMib(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
    return (field('Private_Clean') + field('Private_Dirty')) / 1024;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used so far, in seconds; 0 when gone. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** The CPU time each of `pids` has used so far, to measure from with `cpuSecondsSince`. */
export function cpuMark(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

/** CPU seconds the marked processes among `pids` used since `mark`; one that is gone adds nothing. */
export function cpuSecondsSince(mark: Map<number, number>, pids: number[]): number {
  return pids.reduce((sum, pid) => sum + Math.max(0, cpuSeconds(pid) - (mark.get(pid) ?? 0)), 0);
}

/** The memory the kernel could still give out, in MiB (MemAvailable). */
export function availableMib(): number {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  return Number(/^MemAvailable:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? 0) / 1024;
}

/**
 * CPU used by a set of processes over `seconds`, as a percentage of one core. Processes are the
 * ones `pids()` gives at the start; one that exits meanwhile counts up to its last reading.
 */
export async function cpuPercentOver(
  pids: () => number[],
  seconds: number,
): Promise<{ percent: number; processes: number }> {
  const watched = pids();
  const mark = cpuMark(watched);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return { percent: (cpuSecondsSince(mark, watched) / seconds) * 100, processes: watched.length };
}
