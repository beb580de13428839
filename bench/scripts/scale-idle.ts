/**
 * Where the idle CPU of N live sessions goes, second by second after their last turn: the `scale`
 * benchmark's setup (one runtime in this process with one event follower per session, sessions
 * started 10 at a time and warmed up with one turn each), then every BENCH_IDLE_STEP_S seconds for
 * BENCH_IDLE_S seconds, the CPU time used by the workers, their `claude`s and this process (the
 * server's part), from /proc/PID/stat. It prints one JSON object: the timeline, and the 60 s windows
 * starting 2, 10, 60 and 120 s after the last turn (as far as the run lasts).
 *
 * BENCH_N (default 30) sessions; BENCH_ALL_TURN=1 gives every session one more turn, all at once,
 * after the warm-up, so that every session's last turn is within a second of the others';
 * BENCH_WORKER_NODE_OPTIONS goes to the workers' NODE_OPTIONS (`--trace-gc`, `--cpu-prof`);
 * BENCH_KEEP=1 keeps the data dir (the workers' logs) and prints where it is.
 *
 * Run: npm run build && node --import tsx bench/scripts/scale-idle.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRuntime, type Runtime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { availableMib, descendants } from '../lib/procfs.js';

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? '');
  return process.env[name] && Number.isFinite(value) ? value : fallback;
};
const count = numberFromEnv('BENCH_N', 30);
const idleSeconds = numberFromEnv('BENCH_IDLE_S', 120);
const stepSeconds = numberFromEnv('BENCH_IDLE_STEP_S', 5);
const batch = 10;
const log = (line: string) => process.stderr.write(`${line}\n`);
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * CPU time a process's threads have used so far, in seconds, to the nanosecond
 * (/proc/PID/task/TID/schedstat): /proc/PID/stat counts 10 ms ticks, too coarse for a process that
 * wakes for a millisecond. Threads that exited are not counted; 0 when the process is gone.
 */
function cpuSeconds(pid: number): number {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const line = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8');
      total += Number(line.split(' ')[0] ?? 0);
    }
    return total / 1e9;
  } catch {
    return 0;
  }
}

/** Follows one session's events; `next` resolves at the first event after a cursor that ends a turn. */
class Follower {
  private listeners = new Set<(type: string, cursor: number) => void>();
  constructor(runtime: Runtime, sessionId: string, signal: AbortSignal) {
    void (async () => {
      for await (const event of runtime.events(sessionId, { follow: true, signal })) {
        for (const listener of [...this.listeners]) listener(event.type, event.cursor);
      }
    })().catch(() => {});
  }
  next(after: number, until: (type: string) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const listener = (type: string, cursor: number) => {
        if (cursor > after && until(type)) {
          this.listeners.delete(listener);
          resolve();
        }
      };
      this.listeners.add(listener);
    });
  }
}

const ends = new Set(['agent.turn.completed', 'agent.error', 'execution.failed', 'execution.stopped']);

async function turn(runtime: Runtime, sessionId: string, follower: Follower, text: string) {
  const after = await runtime.store.lastCursor(sessionId);
  const end = follower.next(after, (type) => ends.has(type));
  await runtime.send(sessionId, { text });
  await end;
}

async function main(): Promise<void> {
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const workerNodeOptions = process.env.BENCH_WORKER_NODE_OPTIONS;
  const env = {
    ...process.env,
    ...model.env(),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    AGENTD_IDLE_TIMEOUT_MS: '0',
    ...(workerNodeOptions ? { NODE_OPTIONS: workerNodeOptions } : {}),
  };
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-scale-idle-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const runtime = await createRuntime({ dataDir: join(directory, 'data'), env });
  const controller = new AbortController();
  const sessions: Array<{ id: string; follower: Follower }> = [];
  try {
    log(`scale-idle: N=${count}, load ${loadavg()[0]}, ${Math.round(availableMib())} MiB available`);
    while (sessions.length < count) {
      const wave = Math.min(batch, count - sessions.length);
      await Promise.all(
        Array.from({ length: wave }, async () => {
          const { session } = await runtime.createSession({ cwd });
          const follower = new Follower(runtime, session.id, controller.signal);
          sessions.push({ id: session.id, follower });
          await turn(runtime, session.id, follower, 'warm up');
        }),
      );
      log(`scale-idle: ${sessions.length}/${count} sessions live`);
    }
    if (process.env.BENCH_ALL_TURN === '1') {
      await Promise.all(sessions.map((each) => turn(runtime, each.id, each.follower, 'once more')));
      log('scale-idle: every session took one more turn');
    }
    const lastTurnAt = performance.now();
    const workers = (await runtime.executionsInState(['running', 'idle'])).map((each) => each.pid!);
    const claudes = workers.flatMap((pid) => descendants(pid));
    const groups = { server: [process.pid], workers, claudes };
    // Reading /proc costs this process CPU too: counted apart, and taken off the server's part.
    let samplingSeconds = 0;
    const read = () => {
      const before = process.cpuUsage();
      const cpu = Object.fromEntries(
        Object.entries(groups).map(([name, pids]) => [name, pids.map((pid) => cpuSeconds(pid))]),
      ) as Record<keyof typeof groups, number[]>;
      cpu.server = [cpu.server[0]! - samplingSeconds];
      const used = process.cpuUsage(before);
      samplingSeconds += (used.user + used.system) / 1e6;
      return cpu;
    };
    const loadAtStart = loadavg()[0]!;
    const samples: Array<{ atS: number; cpu: Record<keyof typeof groups, number[]> }> = [
      { atS: 0, cpu: read() },
    ];
    for (let step = 1; step * stepSeconds <= idleSeconds; step++) {
      const due = lastTurnAt + step * stepSeconds * 1000;
      await sleep(Math.max(0, due - performance.now()));
      samples.push({ atS: (performance.now() - lastTurnAt) / 1000, cpu: read() });
    }
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    /** Percent of one core used by a group between two samples. */
    const percent = (from: number, to: number, group: keyof typeof groups) => {
      const first = samples[from]!;
      const last = samples[to]!;
      const used = sum(last.cpu[group].map((value, index) => Math.max(0, value - first.cpu[group][index]!)));
      return round3((used / (last.atS - first.atS)) * 100);
    };
    const timeline = samples.slice(1).map((sample, index) => ({
      fromS: Math.round(samples[index]!.atS),
      toS: Math.round(sample.atS),
      workers: percent(index, index + 1, 'workers'),
      claudes: percent(index, index + 1, 'claudes'),
      server: percent(index, index + 1, 'server'),
    }));
    const nearest = (seconds: number) =>
      samples.reduce(
        (best, sample, index) =>
          Math.abs(sample.atS - seconds) < Math.abs(samples[best]!.atS - seconds) ? index : best,
        0,
      );
    const windows = [2, 10, 60, 120]
      .map((startS) => [nearest(startS), nearest(startS + 60)] as const)
      .filter(([from, to]) => samples[to]!.atS - samples[from]!.atS >= 55)
      .map(([from, to]) => {
        const parts = {
          workers: percent(from, to, 'workers'),
          claudes: percent(from, to, 'claudes'),
          server: percent(from, to, 'server'),
        };
        const total = parts.workers + parts.claudes + parts.server;
        return {
          fromS: Math.round(samples[from]!.atS),
          toS: Math.round(samples[to]!.atS),
          ...parts,
          total: round3(total),
          perSession: round3(total / sessions.length),
          extrapolatedTo100: round3((total / sessions.length) * 100),
        };
      });
    // Per worker over the whole run: who is busy, and how busy.
    const perWorker = workers.map((pid, index) => ({
      pid,
      ms: Math.round((samples.at(-1)!.cpu.workers[index]! - samples[0]!.cpu.workers[index]!) * 10000) / 10,
    }));
    process.stdout.write(
      `${JSON.stringify(
        {
          sessions: sessions.length,
          workers: workers.length,
          claudes: claudes.length,
          loadAtStart,
          loadAtEnd: loadavg()[0],
          windows,
          timeline,
          perWorkerMs: perWorker.map((each) => each.ms).sort((a, b) => a - b),
          ...(process.env.BENCH_KEEP === '1' ? { directory } : {}),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    controller.abort();
    const pids = (await runtime.executionsInState(['starting', 'running', 'idle', 'stopping'])).map(
      (each) => each.pid,
    );
    if (process.env.BENCH_KEEP === '1') {
      // Let the workers leave on their own, so that a `--cpu-prof` is written.
      for (const pid of pids) if (pid) process.kill(pid, 'SIGTERM');
      await sleep(5000);
    }
    for (const pid of pids) {
      try {
        if (pid) process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    await runtime.close();
    await model.close();
    if (process.env.BENCH_KEEP !== '1') rmSync(directory, { recursive: true, force: true });
  }
}

await main();
