/**
 * Warm starts against a plain cold SDK `query()`, interleaved in one run, the real SDK and `claude`
 * against the scripted model:
 *
 * (a) a new session on a runtime with a warm pool (one entry for the default role, ready before each
 *     run): from `createSession()` to the session's first event from `claude` (the first journal
 *     event after `execution.started`) and to its first `agent.message`;
 * (b) `query({ prompt })` in this process, cold: to its first message and to its first assistant message.
 * (a′) a new session on a runtime with a spare worker and no warm entry (`agentd serve`'s default
 *     for a session no warm entry fits): the same two times as (a).
 * (c) the PSS (/proc/PID/smaps_rollup) of an idle worker, this build's against a baseline build's
 *     (BENCH_BASELINE: a checkout of an earlier commit with its dist/ built), when given.
 *
 * Run: npm run build && node --import tsx bench/scripts/warm.ts   (prints one JSON object)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { createRuntime, type Runtime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { machine } from '../lib/machine.js';
import { summarize } from '../lib/stats.js';

const runs = Number(process.env.BENCH_RUNS || 10);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 10) / 10;
const rounded = (values: number[]) => {
  const { median, min, max, n } = summarize(values);
  return { median: round(median), min: round(min), max: round(max), n };
};

/** Proportional memory of one process in MiB. */
function pssMb(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)\s+kB/m.exec(rollup)?.[1] ?? Number.NaN) / 1024;
}

async function waitReady(runtime: Runtime): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!runtime.warmEntries().some((entry) => entry.ready)) {
    if (Date.now() > deadline) throw new Error('no warm entry became ready');
    await sleep(50);
  }
  // Its claude's handshake: startup() resolves once claude answered initialize.
  await sleep(1500);
}

async function warmSession(runtime: Runtime, run: number) {
  await waitReady(runtime);
  return newSession(runtime, run);
}

/** A new session's first event from its agent and its first answer, from `createSession()`. */
async function newSession(runtime: Runtime, run: number) {
  const started = performance.now();
  const { session } = await runtime.createSession({ prompt: `hi ${run}` });
  let firstEvent: number | undefined;
  let started_ = false;
  for await (const event of runtime.events(session.id, { follow: true })) {
    if (event.type === 'execution.started') started_ = true;
    else if (started_ && firstEvent === undefined) firstEvent = performance.now() - started;
    if (event.type === 'agent.message') {
      const answer = performance.now() - started;
      await runtime.stop(session.id);
      return { firstEvent: firstEvent ?? answer, answer };
    }
  }
  throw new Error('the event stream ended');
}

async function coldQuery(options: { cwd: string; env: Record<string, string | undefined> }) {
  const started = performance.now();
  let firstEvent: number | undefined;
  for await (const message of query({ prompt: 'hi', options: { cwd: options.cwd, env: options.env } })) {
    firstEvent ??= performance.now() - started;
    if (message.type === 'assistant') return { firstEvent, answer: performance.now() - started };
  }
  throw new Error('query ended without an answer');
}

/** PSS of an idle live worker started by the runtime of `dist` (this build's, or a baseline's). */
async function workerPss(options: {
  dist: string;
  dataDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
}) {
  const { createRuntime: create } = (await import(join(options.dist, 'index.js'))) as {
    createRuntime: typeof createRuntime;
  };
  const runtime = await create({ dataDir: options.dataDir, env: options.env });
  try {
    const { session } = await runtime.createSession({ prompt: 'hi', cwd: options.cwd });
    for await (const event of runtime.events(session.id, { follow: true }))
      if (event.type === 'work.settled') break;
    const { live } = await runtime.getSession(session.id);
    if (!live?.pid) throw new Error('no live worker');
    await sleep(3000);
    const samples: number[] = [];
    for (let sample = 0; sample < 5; sample++) {
      samples.push(pssMb(live.pid));
      await sleep(200);
    }
    await runtime.stop(session.id);
    return summarize(samples).median;
  } finally {
    await runtime.close();
  }
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-warm-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const env = {
    ...process.env,
    ...model.env(),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CWD: cwd,
  };
  const startMachine = machine();
  const runtime = await createRuntime({ dataDir: join(directory, 'data'), env, pollMs: 5, warmPool: 1 });
  const spared = await createRuntime({
    dataDir: join(directory, 'data-spare'),
    env,
    pollMs: 5,
    spareWorkers: 1,
  });
  try {
    const warm: Array<{ firstEvent: number; answer: number }> = [];
    const cold: Array<{ firstEvent: number; answer: number }> = [];
    const spare: Array<{ firstEvent: number; answer: number }> = [];
    await coldQuery({ cwd, env }); // warm-up: the file cache, not the process
    for (let run = 0; run < runs; run++) {
      warm.push(await warmSession(runtime, run));
      // The pool refills after the take: cold starts only once that entry has booted, so that it
      // does not share the cores with it.
      await waitReady(runtime);
      cold.push(await coldQuery({ cwd, env }));
      await waitReady(spared);
      spare.push(await newSession(spared, run));
      await waitReady(spared);
    }
    const memory: Record<string, number> = {};
    const root = new URL('../..', import.meta.url).pathname;
    memory.worker = round(
      await workerPss({ dist: join(root, 'dist'), dataDir: join(directory, 'pss'), cwd, env }),
    );
    if (process.env.BENCH_BASELINE)
      memory.baselineWorker = round(
        await workerPss({
          dist: join(process.env.BENCH_BASELINE, 'dist'),
          dataDir: join(directory, 'pss-base'),
          cwd,
          env,
        }),
      );
    type Sample = { firstEvent: number; answer: number };
    const ratio = (pick: (each: Sample) => number, side: Sample[] = warm) =>
      round(summarize(side.map(pick)).median / summarize(cold.map(pick)).median);
    process.stdout.write(
      `${JSON.stringify(
        {
          benchmark: 'warm',
          machine: startMachine,
          endLoadAverage: machine().loadAverage,
          runs,
          warm: {
            firstEvent: rounded(warm.map((each) => each.firstEvent)),
            answer: rounded(warm.map((each) => each.answer)),
          },
          cold: {
            firstEvent: rounded(cold.map((each) => each.firstEvent)),
            answer: rounded(cold.map((each) => each.answer)),
          },
          spare: {
            firstEvent: rounded(spare.map((each) => each.firstEvent)),
            answer: rounded(spare.map((each) => each.answer)),
          },
          ratio: { firstEvent: ratio((each) => each.firstEvent), answer: ratio((each) => each.answer) },
          spareRatio: {
            firstEvent: ratio((each) => each.firstEvent, spare),
            answer: ratio((each) => each.answer, spare),
          },
          memoryPssMiB: memory,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await runtime.close();
    await spared.close();
    await model.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
