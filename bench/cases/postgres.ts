import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

interface StoreFigures {
  appends: { single: number; batched: number };
  wake: Summary;
  takeover: Summary;
  sendToFirstEvent: Summary;
}

const range = (summary: Summary) =>
  `${summary.median.toFixed(1)} ms (${summary.min.toFixed(1)}–${summary.max.toFixed(1)}, n=${summary.n})`;

/** The PostgreSQL store against SQLite: appends, a reader's wake on another node, lease takeover. */
export const postgresCase: BenchCase = {
  name: 'postgres',
  description:
    'PostgreSQL store beside SQLite: appends/s (1 and 100 per transaction), wake of a reader on another node, lease takeover, send → first event',
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'postgres.ts', runs, log });
    const sqlite = data.sqlite as StoreFigures;
    const postgres = data.postgres as StoreFigures;
    const markdown = [
      '| measured | SQLite | PostgreSQL |',
      '| --- | --- | --- |',
      `| append, 1 event per transaction | ${sqlite.appends.single.toLocaleString('en')}/s | ${postgres.appends.single.toLocaleString('en')}/s |`,
      `| append, 100 events per transaction | ${sqlite.appends.batched.toLocaleString('en')}/s | ${postgres.appends.batched.toLocaleString('en')}/s |`,
      `| append → read by a reader on another node | ${range(sqlite.wake)} | ${range(postgres.wake)} |`,
      `| taking over a lapsed lease | ${range(sqlite.takeover)} | ${range(postgres.takeover)} |`,
      `| runtime.send() → first agent event, live idle session | ${range(sqlite.sendToFirstEvent)} | ${range(postgres.sendToFirstEvent)} |`,
    ].join('\n');
    return { markdown, data };
  },
};
