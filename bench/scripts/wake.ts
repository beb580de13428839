/**
 * Waking a hibernated session against a plain cold `query()` with `resume`, with the real SDK and
 * `claude` against the scripted model:
 *
 * - A: a session whose worker left after its idle timeout (no worker, no `claude`), on a runtime
 *   that keeps a spare worker as `agentd serve` does by default: `runtime.send()` → the turn's first
 *   agent event (the spare takes the execution, the native session resumed from the store's
 *   transcript), and → the turn's end;
 * - A′: the same on a runtime with no spare (a CLI's, or `spareWorkers: 0`): a worker is started;
 * - B: in this process (the SDK already loaded), `query({ prompt, options: { resume } })` on a
 *   session made before → its first assistant message, and → its result.
 *
 * Runs interleaved, BENCH_RUNS of each (default 10). Prints one JSON object.
 * Run: npm run build && node --import tsx bench/scripts/wake.ts
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { createRuntime, type Runtime } from '../../src/index.js';
import { isProcessAlive } from '../../src/journal/process-identity.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { machine } from '../lib/machine.js';
import { summarize } from '../lib/stats.js';

const runs = Number(process.env.BENCH_RUNS || 10);
const round1 = (value: number) => Math.round(value * 10) / 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const rounded = (values: number[]) => {
  const { median, min, max, n } = summarize(values);
  return { median: round1(median), min: round1(min), max: round1(max), n };
};

/** Waits until the session is hibernated: its worker left after the idle timeout and is gone. */
async function hibernated(runtime: Runtime, sessionId: string): Promise<void> {
  for (;;) {
    const details = await runtime.getSession(sessionId);
    const last = details.executions.at(-1);
    if (details.hibernated && last && !isProcessAlive(last.pid!, last.processStartTime)) return;
    await sleep(100);
  }
}

async function wakeOnce(runtime: Runtime, sessionId: string, text: string) {
  const after = await runtime.lastCursor(sessionId);
  const started = performance.now();
  await runtime.send(sessionId, { text });
  let firstEventMs = Number.NaN;
  for await (const event of runtime.events(sessionId, { after, follow: true })) {
    if (Number.isNaN(firstEventMs) && event.type.startsWith('agent.'))
      firstEventMs = performance.now() - started;
    if (event.type === 'agent.turn.completed') break;
  }
  return { firstEventMs, endMs: performance.now() - started };
}

async function plainResume(options: {
  cwd: string;
  env: Record<string, string | undefined>;
  resume?: string;
}) {
  const started = performance.now();
  let firstEventMs = Number.NaN;
  let sessionId = '';
  for await (const message of query({
    prompt: 'ping',
    options: {
      cwd: options.cwd,
      env: { ...options.env },
      ...(options.resume ? { resume: options.resume } : {}),
    },
  })) {
    if (message.type === 'system' && message.subtype === 'init') sessionId = message.session_id;
    if (Number.isNaN(firstEventMs) && message.type === 'assistant')
      firstEventMs = performance.now() - started;
  }
  return { firstEventMs, endMs: performance.now() - started, sessionId };
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-wake-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const env = {
    ...process.env,
    ...model.env(),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    AGENTD_IDLE_TIMEOUT_MS: '1000',
  };
  const startMachine = machine();
  const runtime = await createRuntime({ dataDir: join(directory, 'data'), env, spareWorkers: 1 });
  const unspared = await createRuntime({ dataDir: join(directory, 'data-unspared'), env });
  try {
    const { session } = await runtime.createSession({ prompt: 'warm up', cwd });
    const other = (await unspared.createSession({ prompt: 'warm up', cwd })).session;
    const plain = await plainResume({ cwd, env });
    const wake = { firstEventMs: [] as number[], endMs: [] as number[] };
    const started = { firstEventMs: [] as number[], endMs: [] as number[] };
    const cold = { firstEventMs: [] as number[], endMs: [] as number[] };
    for (let run = 0; run < runs; run++) {
      await hibernated(runtime, session.id);
      await hibernated(unspared, other.id);
      // The spare refilled behind the last wake has loaded the SDK, as it has on a server between messages.
      while (!runtime.warmEntries().some((entry) => entry.ready)) await sleep(50);
      const a = await wakeOnce(runtime, session.id, `wake ${run}`);
      wake.firstEventMs.push(a.firstEventMs);
      wake.endMs.push(a.endMs);
      const b = await plainResume({ cwd, env, resume: plain.sessionId });
      cold.firstEventMs.push(b.firstEventMs);
      cold.endMs.push(b.endMs);
      const c = await wakeOnce(unspared, other.id, `wake ${run}`);
      started.firstEventMs.push(c.firstEventMs);
      started.endMs.push(c.endMs);
      process.stderr.write(
        `wake ${run}: ${Math.round(a.firstEventMs)} ms (spare), ${Math.round(c.firstEventMs)} ms (started); plain resume ${Math.round(b.firstEventMs)} ms\n`,
      );
    }
    const ratio = (values: number[], base: number[]) =>
      Math.round((summarize(values).median / summarize(base).median) * 100) / 100;
    process.stdout.write(
      `${JSON.stringify(
        {
          benchmark: 'wake',
          machine: startMachine,
          loadAtEnd: round1(loadavg()[0]!),
          runs,
          hibernatedWake: { firstEventMs: rounded(wake.firstEventMs), endMs: rounded(wake.endMs) },
          hibernatedWakeStarted: {
            firstEventMs: rounded(started.firstEventMs),
            endMs: rounded(started.endMs),
          },
          plainColdResume: { firstEventMs: rounded(cold.firstEventMs), endMs: rounded(cold.endMs) },
          ratio: {
            firstEvent: ratio(wake.firstEventMs, cold.firstEventMs),
            end: ratio(wake.endMs, cold.endMs),
            startedFirstEvent: ratio(started.firstEventMs, cold.firstEventMs),
            startedEnd: ratio(started.endMs, cold.endMs),
          },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    // The last woken workers leave on their idle timeout too.
    for (const each of [runtime, unspared]) {
      const [session] = await each.listSessions();
      if (session) await hibernated(each, session.id);
      await each.close();
    }
    await model.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
