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
 * Run: npm run build && node --import tsx bench/scripts/send.ts   (prints one JSON object)
 * BENCH_RUNS sets the samples per side (default 10; use 20 or more).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sessionSpecOf } from '../../src/backends/session-spec.js';
import type { AgentEvent, JournalRecord, UserInput } from '../../src/index.js';
import { ClaudeBackend, createRuntime, defaultClaudeConfig } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { AsyncQueue } from '../../src/util/async-queue.js';
import { machine } from '../lib/machine.js';
import { median } from '../lib/stats.js';

const runs = Number(process.env.BENCH_RUNS || 10);
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

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-send-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const modelEnv = { ...model.env(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  const startMachine = machine();
  const runtime = await createRuntime({
    dataDir: join(directory, 'data'),
    env: { ...process.env, ...modelEnv },
  });
  let workerPid: number | undefined;
  let sessionId: string | undefined;
  try {
    // agentd: a session warmed up by one turn, followed for the whole run as an SSE client would.
    const { session } = await runtime.createSession({ prompt: 'warm up', cwd });
    sessionId = session.id;
    const follower = runtime.events(session.id, { follow: true })[Symbol.asyncIterator]();
    await nextOf(follower, (event) => event.type === 'work.settled');
    workerPid = (await runtime.getSession(session.id)).live?.pid ?? undefined;

    // direct: the same backend in this process, no journal, warmed up the same way.
    const inputs = new AsyncQueue<UserInput>();
    const direct = new ClaudeBackend().startSession({
      spec: sessionSpecOf({ ...defaultClaudeConfig(), cwd, env: modelEnv }),
      inputs,
    });
    const directEvents = direct[Symbol.asyncIterator]();
    inputs.push({ id: crypto.randomUUID(), text: 'warm up' });
    await nextOf(directEvents, (event: AgentEvent) => event.type === 'agent.turn.completed');

    const agentd: number[] = [];
    const directSamples: number[] = [];
    const directDelivered: number[] = [];
    const stages = { accepted: [] as number[], delivered: [] as number[], journaled: [] as number[] };
    const between: string[][] = [];
    for (let run = 0; run < runs; run++) {
      // (a) agentd
      const sentAt = Date.now();
      const started = performance.now();
      await runtime.send(session.id, { text: `ping ${run}` });
      const turn: JournalRecord[] = [];
      const first = await nextOf(follower, (event) => {
        turn.push(event);
        return event.type.startsWith('agent.');
      });
      agentd.push(performance.now() - started);
      const at = (type: string) => turn.find((event) => event.type === type)?.createdAt ?? Number.NaN;
      stages.accepted.push(at('input.accepted') - sentAt);
      stages.delivered.push(at('input.delivered') - sentAt);
      stages.journaled.push(first.createdAt - sentAt);
      between.push(turn.map((event) => event.type));
      await nextOf(follower, (event) => event.type === 'work.settled');

      // (b) direct
      const directStarted = performance.now();
      inputs.push({ id: crypto.randomUUID(), text: `ping ${run}` });
      await nextOf(directEvents, (event: AgentEvent) => {
        if (event.type === 'input.delivered') directDelivered.push(performance.now() - directStarted);
        return event.type.startsWith('agent.');
      });
      directSamples.push(performance.now() - directStarted);
      await nextOf(directEvents, (event: AgentEvent) => event.type === 'agent.turn.completed');
    }
    inputs.end();
    await direct.close();
    await follower.return?.(undefined);

    const agentdSpread = spread(agentd);
    const directSpread = spread(directSamples);
    const result = {
      benchmark: 'send',
      machine: startMachine,
      loadAverageAtEnd: round(loadavg()[0] ?? Number.NaN),
      runs,
      what: "send → the turn's first agent.* event on a live idle session, ms",
      agentd: agentdSpread,
      direct: directSpread,
      addedMedianMs: round(agentdSpread.median - directSpread.median),
      addedP95Ms: round(agentdSpread.p95 - directSpread.p95),
      stages: {
        what: "ms after send() began, from the journal records' createdAt (whole milliseconds)",
        inputAccepted: spread(stages.accepted),
        inputDelivered: spread(stages.delivered),
        firstEventJournaled: spread(stages.journaled),
        firstEventRead: agentdSpread,
        directInputDelivered: spread(directDelivered),
      },
      recordsBeforeFirstEvent: between[0] ?? [],
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (sessionId !== undefined) await runtime.stop(sessionId).catch(() => {});
    await runtime.close();
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
