/**
 * What a worker process loads and weighs, this build against a baseline build, in one run:
 *
 * (a) PSS (/proc/PID/smaps_rollup) of an idle live worker after one turn: one session at a time,
 *     the builds alternating round by round (BENCH_RUNS rounds, default 3), each sampled 5 times
 *     6 s after its turn settled (after the quiet collection of src/worker/quiet-gc.ts, 5 s);
 * (b) the modules it has loaded by then (ES modules through loader hooks, CommonJS from require's
 *     cache, bench/lib/module-list.mjs), grouped by package, once per build.
 *
 * BENCH_BASELINE=DIR: a checkout of an earlier commit with its dist/ built (else this build only).
 * Run: npm run build && node --import tsx bench/scripts/worker.ts   (prints one JSON object)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { createRuntime } from '../../src/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { machine } from '../lib/machine.js';
import { privateMib, pssMib } from '../lib/procfs.js';
import { median } from '../lib/stats.js';

const rounds = Number(process.env.BENCH_RUNS || 3);
const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const round = (value: number) => Math.round(value * 10) / 10;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One idle worker of `dist`'s runtime after one turn: its PSS, and its pid for the caller. */
async function idleWorker(options: {
  dist: string;
  dataDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Sample its PSS (else only run it, for the module list). */
  measure: boolean;
}): Promise<{ pss: number; private: number }> {
  const { createRuntime: create } = (await import(pathToFileURL(join(options.dist, 'index.js')).href)) as {
    createRuntime: typeof createRuntime;
  };
  const runtime = await create({ dataDir: options.dataDir, env: options.env });
  try {
    const { session } = await runtime.createSession({ prompt: 'hi', cwd: options.cwd });
    for await (const event of runtime.events(session.id, { follow: true }))
      if (event.type === 'work.settled') break;
    const { live } = await runtime.getSession(session.id);
    if (!live?.pid) throw new Error('no live worker');
    await sleep(6000);
    const samples: number[] = [];
    const privateSamples: number[] = [];
    for (let sample = 0; options.measure && sample < 5; sample++) {
      samples.push(pssMib(live.pid));
      privateSamples.push(privateMib(live.pid));
      await sleep(200);
    }
    await runtime.stop(session.id);
    // Its exit writes the CommonJS half of the module list.
    for (let wait = 0; wait < 150 && alive(live.pid); wait++) await sleep(100);
    return { pss: median(samples), private: median(privateSamples) };
  } finally {
    await runtime.close();
  }
}

/** The module list a worker wrote, counted: ES and CommonJS modules, and the top packages. */
function countModules(file: string) {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const cjs = lines.filter((line) => line.startsWith('cjs:'));
  const groups = new Map<string, number>();
  for (const line of lines) {
    const where =
      /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1] ??
      (/\/dist\/([^/]+)\//.exec(line)?.[1] ? `agentd ${/\/dist\/([^/]+)\//.exec(line)?.[1]}` : null) ??
      (line.startsWith('node:') ? 'node:*' : 'other');
    groups.set(where, (groups.get(where) ?? 0) + 1);
  }
  return {
    esm: lines.length - cjs.length,
    cjs: cjs.length,
    byPackage: Object.fromEntries([...groups].sort((a, b) => b[1] - a[1])),
  };
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-worker-'));
  const cwd = join(directory, 'work');
  mkdirSync(cwd);
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const env = { ...process.env, ...model.env(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  const startMachine = machine();
  const builds: Array<[string, string]> = [['current', join(root, 'dist')]];
  if (process.env.BENCH_BASELINE)
    builds.push(['baseline', join(resolve(process.env.BENCH_BASELINE), 'dist')]);
  try {
    const pss: Record<string, number[]> = {};
    const own: Record<string, number[]> = {};
    let run = 0;
    for (let index = 0; index < rounds; index++) {
      for (const [name, dist] of index % 2 === 0 ? builds : [...builds].reverse()) {
        const dataDir = join(directory, `data-${run++}`);
        const measured = await idleWorker({ dist, dataDir, cwd, env, measure: true });
        pss[name] = [...(pss[name] ?? []), measured.pss];
        own[name] = [...(own[name] ?? []), measured.private];
      }
    }
    const modules: Record<string, ReturnType<typeof countModules>> = {};
    for (const [name, dist] of builds) {
      const list = join(directory, `modules-${name}.txt`);
      const hooks = join(root, 'bench', 'lib', 'module-list.mjs');
      await idleWorker({
        dist,
        dataDir: join(directory, `data-modules-${name}`),
        cwd,
        env: { ...env, NODE_OPTIONS: `--import ${pathToFileURL(hooks).href}`, BENCH_MODULE_LIST: list },
        measure: false,
      });
      modules[name] = countModules(list);
    }
    const result = {
      benchmark: 'worker',
      machine: startMachine,
      loadAverageAtEnd: round(loadavg()[0] ?? Number.NaN),
      rounds,
      pssMiB: Object.fromEntries(
        Object.entries(pss).map(([name, values]) => [
          name,
          { median: round(median(values)), all: values.map(round) },
        ]),
      ),
      privateMiB: Object.fromEntries(
        Object.entries(own).map(([name, values]) => [
          name,
          { median: round(median(values)), all: values.map(round) },
        ]),
      ),
      modules,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await model.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
