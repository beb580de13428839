/**
 * Send latency on a live idle session, agentd against a direct backend session, interleaved in one
 * run (the real SDK and `claude` against one scripted model in this process):
 *
 * (a) agentd: `runtime.send()` (what `agentd send` and `POST /v1/sessions/:id/messages` call) on a
 *     session whose worker is live and idle, to the turn's first `agent.*` event as a follower of
 *     the session's events reads it (`runtime.events({ follow })`, what the SSE stream reads);
 * (b) direct: a `ClaudeBackend` session driven in this process with no journal, an input pushed
 *     into its open session, to the first `agent.*` event it yields.
 *
 * Samples alternate a, b, a, b… so that both sides share the machine's load. For (a) each sample
 * also gives the stages the journal saw, from the `createdAt` of its records (milliseconds, one
 * clock for every process): `input.accepted` (the send's commit), `input.delivered` (the worker
 * dispatched it and `claude` echoed it), the first agent event's commit, and its arrival here.
 *
 * With BENCH_BASELINE=DIR (a checkout of an earlier commit with its dist/ built) a third side, that
 * build's runtime and worker on a session of their own, joins the same interleaving: before/after
 * in one run, under one load.
 *
 * Besides the difference of the two medians, the median of the paired differences (each agentd
 * sample minus the direct sample right after it) with its 95% confidence interval: `claude` and the
 * model vary by several ms from one sample to the next, so a few dozen samples cannot tell +4 ms from
 * +7 (decision 0132).
 *
 * Run: npm run build && node --import tsx bench/scripts/send.ts   (prints one JSON object)
 * BENCH_SEND_RUNS sets the samples per side (default 200, about a minute; BENCH_RUNS, the other
 * benchmarks' count, is too few here).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { sessionSpecOf } from '../../src/backends/session-spec.js';
import type { AgentEvent, JournalRecord, UserInput } from '../../src/index.js';
import { ClaudeBackend, createRuntime, defaultClaudeConfig, type Runtime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { AsyncQueue } from '../../src/util/async-queue.js';
import { machine } from '../lib/machine.js';
import { median, medianInterval } from '../lib/stats.js';

const runs = Number(process.env.BENCH_SEND_RUNS || 200);
/** Samples per side after 7 s of quiet each. @default 5 */
const idleRuns = Number(process.env.BENCH_SEND_IDLE_RUNS || 5);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 10) / 10;

/** Median, 95th percentile (nearest rank), min and max. */
function spread(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
  return {
    median: round(median(values)),
    p95: round(p95),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted.at(-1) ?? Number.NaN),
    n: values.length,
  };
}

/** Pulls from an async iterator until `until` holds. */
async function nextOf<T>(iterator: AsyncIterator<T>, until: (value: T) => boolean): Promise<T> {
  for (;;) {
    const result = await iterator.next();
    if (result.done) throw new Error('the stream ended');
    if (until(result.value)) return result.value;
  }
}

/** One agentd build's side: a runtime and a live session warmed up by one turn, followed throughout. */
async function agentdSide(options: {
  create: typeof createRuntime;
  dataDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
}) {
  const runtime: Runtime = await options.create({ dataDir: options.dataDir, env: options.env });
  const { session } = await runtime.createSession({ prompt: 'warm up', cwd: options.cwd });
  // Followed for the whole run, as an SSE client would.
  const follower = runtime.events(session.id, { follow: true })[Symbol.asyncIterator]();
  await nextOf(follower, (event) => event.type === 'work.settled');
  const workerPid = (await runtime.getSession(session.id)).live?.pid ?? undefined;
  const samples: number[] = [];
  const stages = { accepted: [] as number[], delivered: [] as number[], journaled: [] as number[] };
  let records: string[] = [];
  return {
    samples,
    stages,
    records: () => records,
    async sample(run: number): Promise<void> {
      const sentAt = Date.now();
      const started = performance.now();
      await runtime.send(session.id, { text: `ping ${run}` });
      const turn: JournalRecord[] = [];
      const first = await nextOf(follower, (event) => {
        turn.push(event);
        return event.type.startsWith('agent.');
      });
      samples.push(performance.now() - started);
      const at = (type: string) => turn.find((event) => event.type === type)?.createdAt ?? Number.NaN;
      stages.accepted.push(at('input.accepted') - sentAt);
      stages.delivered.push(at('input.delivered') - sentAt);
      stages.journaled.push(first.createdAt - sentAt);
      records = turn.map((event) => event.type);
      await nextOf(follower, (event) => event.type === 'work.settled');
    },
    async close(): Promise<void> {
      await follower.return?.(undefined);
      await runtime.stop(session.id).catch(() => {});
      await runtime.close();
      if (workerPid === undefined) return;
      try {
        process.kill(-workerPid, 'SIGKILL');
      } catch {
        // Stopped already.
      }
    },
  };
}

/** The direct side: the Claude backend in this process, no journal, warmed up the same way. */
async function directSide(options: { cwd: string; env: Record<string, string> }) {
  const inputs = new AsyncQueue<UserInput>();
  const session = new ClaudeBackend().startSession({
    spec: sessionSpecOf({ ...defaultClaudeConfig(), cwd: options.cwd, env: options.env }),
    inputs,
  });
  const events = session[Symbol.asyncIterator]();
  inputs.push({ id: crypto.randomUUID(), text: 'warm up' });
  await nextOf(events, (event: AgentEvent) => event.type === 'agent.turn.completed');
  const samples: number[] = [];
  const delivered: number[] = [];
  return {
    samples,
    delivered,
    async sample(run: number): Promise<void> {
      const started = performance.now();
      inputs.push({ id: crypto.randomUUID(), text: `ping ${run}` });
      await nextOf(events, (event: AgentEvent) => {
        if (event.type === 'input.delivered') delivered.push(performance.now() - started);
        return event.type.startsWith('agent.');
      });
      samples.push(performance.now() - started);
      await nextOf(events, (event: AgentEvent) => event.type === 'agent.turn.completed');
    },
    async close(): Promise<void> {
      inputs.end();
      await session.close();
    },
  };
}

function agentdResult(
  side: Awaited<ReturnType<typeof agentdSide>>,
  direct: ReturnType<typeof spread>,
  directSamples: number[],
) {
  const agentd = spread(side.samples);
  const paired = side.samples.map((value, index) => value - (directSamples[index] ?? Number.NaN));
  const interval = medianInterval(paired);
  return {
    ...agentd,
    addedMedianMs: round(agentd.median - direct.median),
    addedP95Ms: round(agentd.p95 - direct.p95),
    pairedAdded: {
      what: 'each sample minus the direct sample taken right after it: median and its 95% interval',
      median: round(median(paired)),
      low: round(interval.low),
      high: round(interval.high),
    },
    stages: {
      what: "ms after send() began, from the journal records' createdAt (whole milliseconds)",
      inputAccepted: spread(side.stages.accepted),
      inputDelivered: spread(side.stages.delivered),
      firstEventJournaled: spread(side.stages.journaled),
    },
    recordsOfLastTurn: side.records(),
  };
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-send-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const modelEnv = { ...model.env(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  const env = { ...process.env, ...modelEnv };
  const startMachine = machine();
  const baselineDir = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
  const closers: Array<() => Promise<void>> = [];
  try {
    const current = await agentdSide({ create: createRuntime, dataDir: join(directory, 'data'), cwd, env });
    closers.push(current.close);
    const baseline = baselineDir
      ? await agentdSide({
          create: (
            (await import(pathToFileURL(join(baselineDir, 'dist', 'index.js')).href)) as {
              createRuntime: typeof createRuntime;
            }
          ).createRuntime,
          dataDir: join(directory, 'baseline-data'),
          cwd,
          env,
        })
      : undefined;
    if (baseline) closers.push(baseline.close);
    const direct = await directSide({ cwd, env: modelEnv });
    closers.push(direct.close);
    for (let run = 0; run < runs; run++) {
      await current.sample(run);
      await baseline?.sample(run);
      await direct.sample(run);
    }
    // Then sends after 7 s of quiet each: past the 5 s after which agentd stops an idle `claude`
    // (decision 0137), which the next input continues (SIGCONT); the direct session's is never stopped.
    const idleFrom = { agentd: current.samples.length, direct: direct.samples.length };
    for (let run = 0; run < idleRuns; run++) {
      await sleep(7000);
      await current.sample(runs + run);
      await sleep(7000);
      await direct.sample(runs + run);
    }
    const idleAgentd = spread(current.samples.splice(idleFrom.agentd));
    const idleDirect = spread(direct.samples.splice(idleFrom.direct));
    const idleStages = {
      inputAccepted: spread(current.stages.accepted.splice(idleFrom.agentd)),
      inputDelivered: spread(current.stages.delivered.splice(idleFrom.agentd)),
      firstEventJournaled: spread(current.stages.journaled.splice(idleFrom.agentd)),
    };
    const idleDirectDelivered = spread(direct.delivered.splice(idleFrom.direct));
    const directSpread = spread(direct.samples);
    const result = {
      benchmark: 'send',
      machine: startMachine,
      loadAverageAtEnd: round(loadavg()[0] ?? Number.NaN),
      runs,
      what: "send → the turn's first agent.* event on a live idle session, ms",
      agentd: agentdResult(current, directSpread, direct.samples),
      ...(baseline
        ? {
            baseline: { dir: baselineDir, ...agentdResult(baseline, directSpread, direct.samples) },
            // Sample by sample (adjacent in time, so under the same load): this build minus the baseline.
            pairedDifference: spread(
              current.samples.map((value, index) => value - (baseline.samples[index] ?? 0)),
            ),
          }
        : {}),
      samples: {
        agentd: current.samples.map(round),
        baseline: baseline?.samples.map(round),
        direct: direct.samples.map(round),
      },
      direct: { ...directSpread, inputDelivered: spread(direct.delivered) },
      afterIdle: {
        what: "the same after 7 s of quiet before each send (agentd's claude stopped, then continued)",
        agentd: { ...idleAgentd, stages: idleStages },
        direct: { ...idleDirect, inputDelivered: idleDirectDelivered },
        addedMedianMs: round(idleAgentd.median - idleDirect.median),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await model.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
