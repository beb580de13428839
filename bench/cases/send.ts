import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Spread {
  median: number;
  p95: number;
  min: number;
  max: number;
  n: number;
}

/** Send latency on a live idle session: agentd against a direct backend session, interleaved. */
export const sendCase: BenchCase = {
  name: 'send',
  description:
    "send → the turn's first agent event on a live idle session: runtime.send() against a direct ClaudeBackend session, interleaved",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'send.ts', runs, log });
    const agentd = data.agentd as Spread;
    const direct = data.direct as Spread;
    const stages = data.stages as Record<string, Spread>;
    const machine = data.machine as { loadAverage: number };
    const row = (name: string, entry: Spread) =>
      `| ${name} | ${entry.median} | ${entry.p95} | ${entry.min}–${entry.max} | ${entry.n} |`;
    const markdown = [
      '| ms after send | median | p95 | min–max | n |',
      '| --- | --- | --- | --- | --- |',
      row('agentd: first agent event read', agentd),
      row('direct ClaudeBackend: first agent event', direct),
      row('agentd: input.accepted journaled', stages.inputAccepted!),
      row('agentd: input.delivered journaled', stages.inputDelivered!),
      row('direct: input echoed', stages.directInputDelivered!),
      row('agentd: first agent event journaled', stages.firstEventJournaled!),
      '',
      `Added by agentd: ${data.addedMedianMs} ms at the median, ${data.addedP95Ms} ms at p95. Load average ${machine.loadAverage} at the start, ${data.loadAverageAtEnd} at the end.`,
    ].join('\n');
    return { markdown, data };
  },
};
