import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Throughput {
  events: number;
  ms: number;
  eventsPerSecond: number;
}

/** Journal throughput of the SQLite store (WAL, synchronous=FULL). */
export const storeCase: BenchCase = {
  name: 'store',
  description:
    'SQLite store: events appended per second (1 and 100 per transaction) and read back per second',
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'store.ts', runs, log });
    const row = (label: string, entry: Throughput) =>
      `| ${label} | ${entry.events.toLocaleString('en')} | ${entry.ms} ms | ${entry.eventsPerSecond.toLocaleString('en')} |`;
    const markdown = [
      '| operation | events | time | events/s |',
      '| --- | --- | --- | --- |',
      row('append, 1 event per transaction', data.appendSingle as Throughput),
      row('append, 100 events per transaction', data.appendBatched as Throughput),
      row('read back, pages of 1,000', data.read as Throughput),
    ].join('\n');
    return { markdown, data };
  },
};
