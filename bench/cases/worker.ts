import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Modules {
  esm: number;
  cjs: number;
  byPackage: Record<string, number>;
}

/** What an idle worker loads and weighs (PSS), this build against BENCH_BASELINE's. */
export const workerCase: BenchCase = {
  name: 'worker',
  description:
    "an idle worker's PSS after one turn and the modules it has loaded, this build against a baseline build (BENCH_BASELINE=DIR), alternating",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'worker.ts', runs: Math.min(runs, 5), log });
    const pss = data.pssMiB as Record<string, { median: number; all: number[] }>;
    const own = data.privateMiB as Record<string, { median: number; all: number[] }>;
    const modules = data.modules as Record<string, Modules>;
    const machine = data.machine as { loadAverage: number };
    const names = Object.keys(pss);
    const top = (entry: Modules) =>
      Object.entries(entry.byPackage)
        .slice(0, 6)
        .map(([name, count]) => `${name} ${count}`)
        .join(', ');
    const markdown = [
      '| build | idle worker PSS, MiB (median; each round) | private (Private_Clean + Private_Dirty), MiB | ES modules | CommonJS modules | most loaded from |',
      '| --- | --- | --- | --- | --- | --- |',
      ...names.map(
        (name) =>
          `| ${name} | ${pss[name]!.median} (${pss[name]!.all.join(', ')}) | ${own[name]!.median} (${own[name]!.all.join(', ')}) | ${modules[name]!.esm} | ${modules[name]!.cjs} | ${top(modules[name]!)} |`,
      ),
      '',
      `Load average ${machine.loadAverage} at the start, ${data.loadAverageAtEnd} at the end.`,
    ].join('\n');
    return { markdown, data };
  },
};
