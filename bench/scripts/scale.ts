/**
 * N concurrent live sessions on one machine, against the scripted model, beside N plain SDK
 * `query()` sessions in one process (bench/scripts/scale-plain.ts):
 *
 * - memory: PSS (/proc/PID/smaps_rollup) of every worker, every `claude` and the process that
 *   holds the runtime (here: this one, as `agentd serve` would, with one event follower per session);
 * - idle CPU: all of them over BENCH_SCALE_IDLE_S seconds while every session is live and idle and
 *   every follower waits (from /proc/PID/stat);
 * - latency: each session takes a turn every BENCH_SCALE_PERIOD_MS, its start spread over the
 *   period, for BENCH_SCALE_ROUNDS rounds: send → the turn's first agent event, and → its end;
 *   and the CPU time every process used meanwhile, per turn.
 *
 * BENCH_SCALE_N picks the sizes (default 10,50,100,150), reached in turn by the same sessions;
 * BENCH_SCALE_PLAIN_N those of the plain side (default the same). Growing stops (and is reported) when the
 * machine's available memory would fall under BENCH_SCALE_MIN_FREE_MIB (default 3000). Measurements start
 * BENCH_SCALE_SETTLE_MS (default 8000) after the last warm-up turn, past the 5 s after which an idle
 * `claude` is stopped (AGENTD_FREEZE_IDLE_MS).
 *
 * Run: npm run build && node --import tsx bench/scripts/scale.ts   (prints one JSON object)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { machine } from '../lib/machine.js';
import {
  availableMib,
  cpuMark,
  cpuPercentOver,
  cpuSecondsSince,
  descendants,
  pssMib,
} from '../lib/procfs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? '');
  return process.env[name] && Number.isFinite(value) ? value : fallback;
};
const sizes = (process.env.BENCH_SCALE_N ?? '10,50,100,150').split(',').map(Number);
/** The sizes the plain side runs too. @default BENCH_SCALE_N */
const plainSizes = process.env.BENCH_SCALE_PLAIN_N
  ? process.env.BENCH_SCALE_PLAIN_N.split(',').map(Number)
  : sizes;
const idleSeconds = numberFromEnv('BENCH_SCALE_IDLE_S', 60);
const rounds = numberFromEnv('BENCH_SCALE_ROUNDS', 3);
const periodMs = numberFromEnv('BENCH_SCALE_PERIOD_MS', 10_000);
const minFreeMib = numberFromEnv('BENCH_SCALE_MIN_FREE_MIB', 3000);
/** From the last warm-up turn to the start of the measurements, on both sides. */
const settleMs = numberFromEnv('BENCH_SCALE_SETTLE_MS', 8000);
/** Sessions started at once while warming up. */
const batch = 10;
const log = (line: string) => process.stderr.write(`${line}\n`);
const round1 = (value: number) => Math.round(value * 10) / 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { p50: round1(at(50)), p95: round1(at(95)), p99: round1(at(99)), n: sorted.length };
}

interface TurnTimes {
  firstEventMs: number;
  endMs: number;
  failed?: boolean;
  /** The send itself was refused (`store_busy`). */
  refused?: boolean;
}

/** One follower per session, as an SSE client of `agentd serve` would hold: events come to `on`. */
class Follower {
  private listeners = new Set<(type: string, cursor: number) => void>();
  readonly done: Promise<void>;
  constructor(runtime: Runtime, sessionId: string, signal: AbortSignal) {
    this.done = (async () => {
      for await (const event of runtime.events(sessionId, { follow: true, signal })) {
        for (const listener of [...this.listeners]) listener(event.type, event.cursor);
      }
    })().catch(() => {});
  }
  /** Resolves at the first event after `after` whose type `until` accepts. */
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

/**
 * One turn: send → the first agent event, and → its end. A turn that ends without completing (the
 * worker failed: SQLite stayed locked past its busy timeout) counts as failed; the next send starts
 * another worker.
 */
async function turn(
  runtime: Runtime,
  sessionId: string,
  follower: Follower,
  text: string,
): Promise<TurnTimes> {
  const after = await runtime.store.lastCursor(sessionId);
  const started = performance.now();
  const ends = new Set(['agent.turn.completed', 'agent.error', 'execution.failed', 'execution.stopped']);
  let ending = '';
  const first = follower.next(after, (type) => type.startsWith('agent.') || ends.has(type));
  const end = follower.next(after, (type) => {
    if (ends.has(type)) ending = type;
    return ends.has(type);
  });
  try {
    await runtime.send(sessionId, { text });
  } catch (error) {
    // Refused (`store_busy`: the store's write lock stayed taken past the API's busy timeout), as a
    // client would be answered 503: counted, not timed.
    if ((error as { code?: unknown }).code !== 'store_busy') throw error;
    return { firstEventMs: Number.NaN, endMs: Number.NaN, failed: true, refused: true };
  }
  await first;
  const firstEventMs = performance.now() - started;
  await end;
  return { firstEventMs, endMs: performance.now() - started, failed: ending !== 'agent.turn.completed' };
}

/** Every session takes `rounds` turns, one per period each, their starts spread over the period. */
async function steadyTurns(count: number, take: (index: number, round: number) => Promise<TurnTimes>) {
  const times: TurnTimes[] = [];
  let late = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      for (let round = 0; round < rounds; round++) {
        const due = startedAt + round * periodMs + (index / count) * periodMs;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        else late++;
        times.push(await take(index, round));
      }
    }),
  );
  const timed = times.filter((each) => !each.refused);
  return {
    sendToFirstEventMs: percentiles(timed.map((each) => each.firstEventMs)),
    sendToEndOfTurnMs: percentiles(timed.map((each) => each.endMs)),
    sendsRefused: times.length - timed.length,
    turnsStartedLate: late,
    turnsFailed: times.filter((each) => each.failed).length,
    turnsPerSecond: round1(count / (periodMs / 1000)),
  };
}

function memoryFloorReached(): boolean {
  return availableMib() < minFreeMib;
}

/** What one size measured on one side. */
interface Measured {
  sessions: number;
  stoppedGrowingAt: number | null;
  warmUpS: number;
  memory: Record<string, number>;
  idleCpu: Record<string, number>;
  latency: unknown;
}

/**
 * The agentd side, growing through `counts` with the same sessions: this process holds the runtime
 * and a follower per session, as `agentd serve` with an SSE client per session would.
 */
async function agentdRun(counts: number[], env: Record<string, string | undefined>): Promise<Measured[]> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-scale-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const runtime = await createRuntime({ dataDir: join(directory, 'data'), env });
  const controller = new AbortController();
  const sessions: Array<{ id: string; follower: Follower }> = [];
  const measured: Measured[] = [];
  try {
    for (const count of counts) {
      let stoppedAt: number | null = null;
      const warmStarted = performance.now();
      while (sessions.length < count) {
        if (memoryFloorReached()) {
          stoppedAt = sessions.length;
          log(`agentd: stopped growing at ${sessions.length} sessions: under ${minFreeMib} MiB available`);
          break;
        }
        const wave = Math.min(batch, count - sessions.length);
        await Promise.all(
          Array.from({ length: wave }, async () => {
            const { session } = await runtime.createSession({ cwd });
            const follower = new Follower(runtime, session.id, controller.signal);
            sessions.push({ id: session.id, follower });
            await turn(runtime, session.id, follower, 'warm up');
          }),
        );
        log(`agentd: ${sessions.length}/${count} sessions live`);
      }
      const warmUpS = (performance.now() - warmStarted) / 1000;
      const live = sessions.length;
      const workers = (await runtime.executionsInState(['running', 'idle'])).map((each) => each.pid!);
      // Settle: the last turns' writes done, every worker back in its wait, every idle claude stopped
      // (AGENTD_FREEZE_IDLE_MS, 5 s by default).
      await sleep(settleMs);
      const claudes = () => workers.flatMap((pid) => descendants(pid));
      const memory = {
        workersMib: round1(workers.reduce((sum, pid) => sum + pssMib(pid), 0)),
        claudesMib: round1(claudes().reduce((sum, pid) => sum + pssMib(pid), 0)),
        serverMib: round1(pssMib(process.pid)),
      };
      log(`agentd: ${live} idle sessions, CPU over ${idleSeconds} s`);
      const loadBefore = loadavg()[0]!;
      const claudePids = claudes();
      const before = cpuMark([process.pid, ...workers, ...claudePids]);
      await sleep(idleSeconds * 1000);
      const used = (pids: number[]) => (cpuSecondsSince(before, pids) / idleSeconds) * 100;
      const idle = {
        server: used([process.pid]),
        workers: used(workers),
        claudes: used(claudePids),
      };
      const total = idle.server + idle.workers + idle.claudes;
      log(`agentd: ${live} sessions, steady turns`);
      const turnsBefore = cpuMark([process.pid, ...workers, ...claudePids]);
      const latency = await steadyTurns(live, async (index, round) => {
        const session = sessions[index]!;
        return turn(runtime, session.id, session.follower, `turn ${round} of ${index}`);
      });
      const perTurnMs = (pids: number[]) =>
        round1((cpuSecondsSince(turnsBefore, pids) * 1000) / (live * rounds));
      const turnCpuMs = {
        server: perTurnMs([process.pid]),
        workers: perTurnMs(workers),
        claudes: perTurnMs(claudePids),
      };
      measured.push({
        sessions: live,
        stoppedGrowingAt: stoppedAt,
        warmUpS: round1(warmUpS),
        memory: {
          ...memory,
          totalMib: round1(memory.workersMib + memory.claudesMib + memory.serverMib),
          perSessionMib: round1((memory.workersMib + memory.claudesMib) / live),
          workerPerSessionMib: round1(memory.workersMib / live),
          claudePerSessionMib: round1(memory.claudesMib / live),
        },
        idleCpu: {
          seconds: idleSeconds,
          load1AtStart: round1(loadBefore),
          totalPercentOfOneCore: round1(total),
          perSessionPercent: Math.round((total / live) * 1000) / 1000,
          serverPercent: round1(idle.server),
          workersPercent: round1(idle.workers),
          claudesPercent: round1(idle.claudes),
          agentdPerSessionPercent: Math.round(((idle.server + idle.workers) / live) * 1000) / 1000,
        },
        latency: {
          ...latency,
          cpuPerTurnMs: {
            ...turnCpuMs,
            total: round1(turnCpuMs.server + turnCpuMs.workers + turnCpuMs.claudes),
          },
        },
      });
      if (stoppedAt !== null) break;
    }
    return measured;
  } finally {
    controller.abort();
    const pids = (await runtime.executionsInState(['starting', 'running', 'idle', 'stopping'])).map(
      (each) => each.pid,
    );
    for (const pid of pids) {
      try {
        if (pid) process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    await runtime.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The same sizes as plain `query()` sessions in one child process, measured from outside. */
async function plainRun(counts: number[], env: Record<string, string | undefined>): Promise<Measured[]> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-scale-plain-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench', 'scripts', 'scale-plain.ts')],
    {
      cwd: root,
      env: {
        ...env,
        BENCH_CWD: directory,
        BENCH_SCALE_ROUNDS: String(rounds),
        BENCH_SCALE_PERIOD_MS: String(periodMs),
        BENCH_SCALE_MIN_FREE_MIB: String(minFreeMib),
      },
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  lines.on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else queue.push(line);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`scale-plain exited with ${code}`))),
  );
  exited.catch(() => {});
  const next = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const queued = queue.shift();
        if (queued !== undefined) resolve(queued);
        else waiting = resolve;
      }),
      exited,
    ]);
  const measured: Measured[] = [];
  try {
    for (const count of counts) {
      child.stdin!.write(`grow ${count}\n`);
      const ready = JSON.parse(await next()) as {
        sessions: number;
        stoppedGrowingAt: number | null;
        warmUpS: number;
      };
      await sleep(settleMs);
      const claudePids = descendants(child.pid!);
      const memory = {
        nodeMib: round1(pssMib(child.pid!)),
        claudesMib: round1(claudePids.reduce((sum, pid) => sum + pssMib(pid), 0)),
      };
      log(`plain: ${ready.sessions} idle sessions, CPU over ${idleSeconds} s`);
      const idle = await cpuPercentOver(() => [child.pid!, ...claudePids], idleSeconds);
      log(`plain: ${ready.sessions} sessions, steady turns`);
      const turnsBefore = cpuMark([child.pid!, ...claudePids]);
      child.stdin!.write('turns\n');
      const latency = JSON.parse(await next());
      const perTurnMs = (pids: number[]) =>
        round1((cpuSecondsSince(turnsBefore, pids) * 1000) / (ready.sessions * rounds));
      const node = perTurnMs([child.pid!]);
      const claudes = perTurnMs(claudePids);
      latency.cpuPerTurnMs = { node, claudes, total: round1(node + claudes) };
      measured.push({
        ...ready,
        memory: {
          ...memory,
          totalMib: round1(memory.nodeMib + memory.claudesMib),
          perSessionMib: round1((memory.nodeMib + memory.claudesMib) / ready.sessions),
          claudePerSessionMib: round1(memory.claudesMib / ready.sessions),
        },
        idleCpu: {
          seconds: idleSeconds,
          totalPercentOfOneCore: round1(idle.percent),
          perSessionPercent: Math.round((idle.percent / ready.sessions) * 1000) / 1000,
        },
        latency,
      });
      if (ready.stoppedGrowingAt !== null) break;
    }
    return measured;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone.
    }
    rmSync(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const env = {
    ...process.env,
    ...model.env(),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // Live for the whole run: hibernation is measured by bench/scripts/wake.ts.
    AGENTD_IDLE_TIMEOUT_MS: '0',
  };
  const startMachine = machine();
  const loadAtStart = round1(loadavg()[0]!);
  let agentd: Measured[] = [];
  let plain: Measured[] = [];
  try {
    log(`scale: N=${sizes.join(',')}, load ${loadAtStart}, ${Math.round(availableMib())} MiB available`);
    agentd = await agentdRun(sizes, env);
    await sleep(3000);
    log(`scale: plain SDK, load ${round1(loadavg()[0]!)}, ${Math.round(availableMib())} MiB available`);
    plain = await plainRun(plainSizes, env);
  } finally {
    await model.close();
  }
  const results = sizes.slice(0, Math.max(agentd.length, plain.length)).map((n, index) => ({
    n,
    agentd: agentd[index],
    plain: plain[index],
  }));
  process.stdout.write(
    `${JSON.stringify({ benchmark: 'scale', machine: startMachine, loadAtStart, loadAtEnd: round1(loadavg()[0]!), rounds, periodMs, idleSeconds, results }, null, 2)}\n`,
  );
}

await main();
