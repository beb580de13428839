import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  n: number;
}

interface Side {
  sessions: number;
  stoppedGrowingAt: number | null;
  memory: { totalMib: number; perSessionMib: number };
  idleCpu: { totalPercentOfOneCore: number; perSessionPercent: number };
  latency: {
    sendToFirstEventMs: Percentiles;
    sendToEndOfTurnMs: Percentiles;
    turnsStartedLate: number;
    turnsFailed?: number;
  };
}

/** N concurrent live sessions against N plain SDK query() sessions in one process. */
export const scaleCase: BenchCase = {
  name: 'scale',
  description:
    'N concurrent live sessions (BENCH_SCALE_N, default 10,50,100,150) with steady turns against N plain SDK query() sessions in one process: PSS, idle CPU, send → first event / end of turn',
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'scale.ts', runs, log });
    const results = data.results as Array<{ n: number; agentd?: Side; plain?: Side }>;
    const p = (value: Percentiles) => `${value.p50} / ${value.p95} / ${value.p99}`;
    const rows = results.flatMap(({ n, agentd, plain }) =>
      (
        [
          ['agentd', agentd],
          ['plain SDK', plain],
        ] as const
      ).flatMap(([name, side]) =>
        side === undefined
          ? []
          : [
              `| ${n}${side.stoppedGrowingAt !== null ? ` (${side.sessions} live)` : ''} | ${name} | ${side.memory.totalMib} | ${side.memory.perSessionMib} | ${side.idleCpu.totalPercentOfOneCore}% | ${side.idleCpu.perSessionPercent}% | ${p(side.latency.sendToFirstEventMs)} | ${p(side.latency.sendToEndOfTurnMs)} | ${side.latency.turnsStartedLate} / ${side.latency.turnsFailed ?? 0} |`,
            ],
      ),
    );
    const markdown = [
      '| N | side | PSS total MiB | PSS / session MiB | idle CPU (one core) | idle CPU / session | send → first event p50/p95/p99 ms | send → end of turn p50/p95/p99 ms | turns late / failed |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
    return { markdown, data };
  },
};
