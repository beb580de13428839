/**
 * The runtime against the direct path, with the real SDK and `claude` against the scripted model:
 *
 * (a) latency from `runtime.send()` to the turn's first agent event, for a live idle worker, against
 *     a `ClaudeBackend` session in this process taking a second input into its open session;
 * (b) resident memory (VmRSS) of an idle live session, worker process plus its `claude`, against a
 *     plain `claude` started by a minimal SDK `query()` script whose streaming input stays open.
 *
 * Run: npm run build && node --import tsx bench/scripts/runtime.ts   (prints one JSON object)
 * BENCH_RUNS sets the repetitions (default 10).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sessionSpecOf } from '../../src/backends/session-spec.js';
import type { AgentEvent, UserInput } from '../../src/index.js';
import { ClaudeBackend, createRuntime, defaultClaudeConfig, type Runtime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { AsyncQueue } from '../../src/util/async-queue.js';
import { machine } from '../lib/machine.js';
import { summarize } from '../lib/stats.js';

const runs = Number(process.env.BENCH_RUNS || 10);
const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 10) / 10;
const rounded = (values: number[]) => {
  const { median, min, max, n } = summarize(values);
  return { median: round(median), min: round(min), max: round(max), n };
};

/** Resident memory of one process in MiB, from /proc/PID/status. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Every process below `pid`, from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone.
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** The median of a few RSS samples of an idle process tree: `{ root, children }` in MiB. */
async function idleRss(pid: number): Promise<{ root: number; children: number }> {
  await sleep(2000);
  const roots: number[] = [];
  const children: number[] = [];
  for (let sample = 0; sample < 5; sample++) {
    roots.push(rssMb(pid));
    children.push(descendants(pid).reduce((sum, child) => sum + rssMb(child), 0));
    await sleep(200);
  }
  return { root: summarize(roots).median, children: summarize(children).median };
}

/** Waits for the session's next event matching `until`, following from `after`. */
async function nextEvent(
  runtime: Runtime,
  sessionId: string,
  after: number,
  until: (type: string) => boolean,
) {
  for await (const event of runtime.events(sessionId, { after, follow: true })) {
    if (until(event.type)) return event;
  }
  throw new Error('the event stream ended');
}

async function runtimeLatency(options: {
  dataDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
}) {
  const runtime = await createRuntime({ dataDir: options.dataDir, env: options.env, pollMs: 5 });
  const { session } = await runtime.createSession({ prompt: 'warm up', cwd: options.cwd });
  await nextEvent(runtime, session.id, 0, (type) => type === 'work.settled');
  const toFirstEvent: number[] = [];
  const toJournaled: number[] = [];
  for (let run = 0; run < runs; run++) {
    const after = await runtime.store.lastCursor(session.id);
    const startedAt = Date.now();
    const started = performance.now();
    await runtime.send(session.id, { text: `ping ${run}` });
    const first = await nextEvent(runtime, session.id, after, (type) => type.startsWith('agent.'));
    toFirstEvent.push(performance.now() - started);
    toJournaled.push(first.createdAt - startedAt);
    await nextEvent(runtime, session.id, first.cursor, (type) => type === 'work.settled');
  }
  const { live } = await runtime.getSession(session.id);
  if (!live?.pid) throw new Error('the worker is not live');
  const memory = await idleRss(live.pid);
  await runtime.stop(session.id);
  await runtime.close();
  return { toFirstEvent, toJournaled, workerPid: live.pid, memory };
}

async function directLatency(options: { cwd: string; env: Record<string, string> }) {
  const inputs = new AsyncQueue<UserInput>();
  const session = new ClaudeBackend().startSession({
    spec: sessionSpecOf({ ...defaultClaudeConfig(), cwd: options.cwd, env: options.env }),
    inputs,
  });
  const iterator = session[Symbol.asyncIterator]();
  const next = async (until: (event: AgentEvent) => boolean) => {
    for (;;) {
      const result = await iterator.next();
      if (result.done) throw new Error('the session ended');
      if (until(result.value)) return result.value;
    }
  };
  inputs.push({ id: crypto.randomUUID(), text: 'warm up' });
  await next((event) => event.type === 'agent.turn.completed');
  const toFirstEvent: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    inputs.push({ id: crypto.randomUUID(), text: `ping ${run}` });
    await next((event) => event.type.startsWith('agent.'));
    toFirstEvent.push(performance.now() - started);
    await next((event) => event.type === 'agent.turn.completed');
  }
  inputs.end();
  await session.close();
  return { toFirstEvent };
}

/** A minimal SDK user: query() with a streaming input that yields one message and stays open. */
const plainScript = `
import { query } from '@anthropic-ai/claude-agent-sdk';
const hold = new Promise(() => {});
async function* prompts() {
  yield { type: 'user', message: { role: 'user', content: 'hi' }, parent_tool_use_id: null };
  await hold;
}
for await (const message of query({ prompt: prompts(), options: { cwd: process.env.BENCH_CWD, env: { ...process.env } } })) {
  if (message.type === 'result') process.stdout.write('ready\\n');
}
`;

async function plainClaudeMemory(options: { cwd: string; env: Record<string, string | undefined> }) {
  // Started in the repository so that the SDK resolves; claude itself runs in the bench's cwd.
  const child = spawn(process.execPath, ['--input-type=module', '-e', plainScript], {
    cwd: root,
    env: { ...options.env, BENCH_CWD: options.cwd },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => line === 'ready' && resolve());
      child.on('exit', (code) => reject(new Error(`the plain SDK script exited with ${code}`)));
    });
    const [claude] = descendants(child.pid!);
    if (claude === undefined) throw new Error('the plain SDK script runs no claude');
    const script = await idleRss(child.pid!);
    return { scriptNode: script.root, claude: rssMb(claude) };
  } finally {
    process.kill(-child.pid!, 'SIGKILL');
  }
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-runtime-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const env = { ...process.env, ...model.env(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  const startMachine = machine();
  let workerPid: number | undefined;
  try {
    const viaRuntime = await runtimeLatency({ dataDir: join(directory, 'data'), cwd, env });
    workerPid = viaRuntime.workerPid;
    const direct = await directLatency({
      cwd,
      env: { ...model.env(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });
    const plain = await plainClaudeMemory({ cwd, env });
    const runtimeMedian = summarize(viaRuntime.toFirstEvent).median;
    const directMedian = summarize(direct.toFirstEvent).median;
    const workerTotal = viaRuntime.memory.root + viaRuntime.memory.children;
    const result = {
      benchmark: 'runtime',
      machine: startMachine,
      runs,
      latency: {
        what: "send() to the turn's first agent.* event, live idle session, ms",
        runtime: {
          ...rounded(viaRuntime.toFirstEvent),
          journaled: rounded(viaRuntime.toJournaled),
        },
        direct: rounded(direct.toFirstEvent),
        addedMedianMs: round(runtimeMedian - directMedian),
        ratio: round(runtimeMedian / directMedian),
      },
      memory: {
        what: 'VmRSS of an idle live session, MiB (median of 5 samples)',
        worker: round(viaRuntime.memory.root),
        workerClaude: round(viaRuntime.memory.children),
        workerTotal: round(workerTotal),
        plainClaude: round(plain.claude),
        plainScriptNode: round(plain.scriptNode),
        workerOverPlainClaude: round(workerTotal / plain.claude),
        addedPercent: round(((workerTotal - plain.claude) / plain.claude) * 100),
        plainTotal: round(plain.claude + plain.scriptNode),
        addedPercentOverPlainTotal: round(
          ((workerTotal - plain.claude - plain.scriptNode) / (plain.claude + plain.scriptNode)) * 100,
        ),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (workerPid !== undefined) {
      try {
        process.kill(-workerPid, 'SIGKILL');
      } catch {
        // Stopped already.
      }
    }
    await model.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
