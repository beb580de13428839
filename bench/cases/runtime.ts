import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Latency a durable worker adds to a turn, and the memory of an idle live session. */
export const runtimeCase: BenchCase = {
  name: 'runtime',
  description:
    "runtime.send() to the turn's first agent event against a direct ClaudeBackend session; resident memory of an idle live session against claude alone",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'runtime.ts', runs, log });
    const latency = data.latency as { runtime: Spread; direct: Spread; addedMedianMs: number; ratio: number };
    const memory = data.memory as Record<string, number>;
    const spread = (entry: Spread) =>
      `${Math.round(entry.median)} ms (${Math.round(entry.min)}–${Math.round(entry.max)})`;
    const markdown = [
      '| latency, live idle session | median (min–max) |',
      '| --- | --- |',
      `| runtime.send() → first agent event | ${spread(latency.runtime)} |`,
      `| direct ClaudeBackend input → first agent event | ${spread(latency.direct)} |`,
      `| added by the runtime | ${latency.addedMedianMs} ms (×${latency.ratio}) |`,
      '',
      '| memory, idle live session (VmRSS) | MiB |',
      '| --- | --- |',
      `| agentd worker | ${memory.worker} |`,
      `| its claude | ${memory.workerClaude} |`,
      `| worker + claude | ${memory.workerTotal} |`,
      `| plain claude alone | ${memory.plainClaude} |`,
      `| plain SDK script's node | ${memory.plainScriptNode} |`,
      `| worker + claude over claude alone | +${memory.addedPercent}% |`,
      `| worker + claude over plain script + claude | +${memory.addedPercentOverPlainTotal}% |`,
    ].join('\n');
    return { markdown, data };
  },
};
