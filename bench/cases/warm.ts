import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Spread {
  median: number;
  min: number;
  max: number;
}

/** A new session with a warm pool entry against a plain cold `query()`, interleaved; a worker's PSS. */
export const warmCase: BenchCase = {
  name: 'warm',
  description:
    "a new session's first event with a warm pool entry, and with a spare worker, against a plain cold SDK query(), interleaved; an idle worker's PSS",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'warm.ts', runs, log });
    const warm = data.warm as { firstEvent: Spread; answer: Spread };
    const cold = data.cold as { firstEvent: Spread; answer: Spread };
    const spare = data.spare as { firstEvent: Spread; answer: Spread };
    const ratio = data.ratio as { firstEvent: number; answer: number };
    const spareRatio = data.spareRatio as { firstEvent: number; answer: number };
    const memory = data.memoryPssMiB as Record<string, number>;
    const spread = (entry: Spread) =>
      `${Math.round(entry.median)} ms (${Math.round(entry.min)}–${Math.round(entry.max)})`;
    const markdown = [
      '| measured (median, min–max) | new session, warm entry | plain cold `query()` | warm / cold | new session, spare worker | spare / cold |',
      '| --- | --- | --- | --- | --- | --- |',
      `| first event from claude | ${spread(warm.firstEvent)} | ${spread(cold.firstEvent)} | ${ratio.firstEvent} | ${spread(spare.firstEvent)} | ${spareRatio.firstEvent} |`,
      `| the model's answer | ${spread(warm.answer)} | ${spread(cold.answer)} | ${ratio.answer} | ${spread(spare.answer)} | ${spareRatio.answer} |`,
      '',
      `Idle worker PSS: ${memory.worker} MiB${memory.baselineWorker !== undefined ? ` (baseline build: ${memory.baselineWorker} MiB)` : ''}.`,
    ].join('\n');
    return { markdown, data };
  },
};
