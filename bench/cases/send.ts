import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Spread {
  median: number;
  p95: number;
  min: number;
  max: number;
  n: number;
}

interface AgentdSide extends Spread {
  addedMedianMs: number;
  addedP95Ms: number;
  pairedAdded: { median: number; low: number; high: number };
  stages: Record<'inputAccepted' | 'inputDelivered' | 'firstEventJournaled', Spread>;
}

/** Send latency on a live idle session: agentd against a direct backend session, interleaved. */
export const sendCase: BenchCase = {
  name: 'send',
  description:
    "send → the turn's first agent event on a live idle session: runtime.send() against a direct ClaudeBackend session, interleaved (BENCH_BASELINE=DIR adds an earlier build; BENCH_SEND_RUNS samples a side, default 200)",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'send.ts', runs, log });
    const sides = [['this build', data.agentd as AgentdSide]] as Array<[string, AgentdSide]>;
    if (data.baseline) sides.push(['baseline build', data.baseline as AgentdSide]);
    const direct = data.direct as Spread & { inputDelivered: Spread };
    const machine = data.machine as { loadAverage: number };
    const afterIdle = data.afterIdle as { agentd: Spread; direct: Spread; addedMedianMs: number };
    const row = (name: string, entry: Spread) =>
      `| ${name} | ${entry.median} | ${entry.p95} | ${entry.min}–${entry.max} | ${entry.n} |`;
    const markdown = [
      '| ms after send | median | p95 | min–max | n |',
      '| --- | --- | --- | --- | --- |',
      ...sides.flatMap(([name, side]) => [
        row(`agentd (${name}): first agent event read`, side),
        row(`agentd (${name}): input.delivered journaled`, side.stages.inputDelivered),
        row(`agentd (${name}): first agent event journaled`, side.stages.firstEventJournaled),
      ]),
      row('direct ClaudeBackend: first agent event', direct),
      row('direct ClaudeBackend: input echoed', direct.inputDelivered),
      row('after 7 s of quiet: agentd (its claude stopped, then continued)', afterIdle.agentd),
      row('after 7 s of quiet: direct ClaudeBackend', afterIdle.direct),
      '',
      `Added by agentd after 7 s of quiet: ${afterIdle.addedMedianMs} ms at the median.`,
      ...sides.map(
        ([name, side]) =>
          `Added by agentd (${name}): ${side.addedMedianMs} ms at the median, ${side.addedP95Ms} ms at p95; sample by sample ${side.pairedAdded.median} ms at the median (95% interval ${side.pairedAdded.low} to ${side.pairedAdded.high}).`,
      ),
      `Load average ${machine.loadAverage} at the start, ${data.loadAverageAtEnd} at the end.`,
    ].join('\n');
    return { markdown, data };
  },
};
