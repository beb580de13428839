import type { BenchCase } from '../lib/bench-case.js';
import { runScript } from './script-case.js';

interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Waking a hibernated session against a plain cold query() with resume. */
export const wakeCase: BenchCase = {
  name: 'wake',
  description:
    "a hibernated session's next input (a spare worker takes it, or a worker is started; the native session resumed) against a plain cold SDK query() with resume: to the first event and to the turn's end",
  async run({ root, runs, log }) {
    const data = await runScript({ root, script: 'wake.ts', runs, log });
    const wake = data.hibernatedWake as { firstEventMs: Spread; endMs: Spread };
    const started = data.hibernatedWakeStarted as { firstEventMs: Spread; endMs: Spread };
    const cold = data.plainColdResume as { firstEventMs: Spread; endMs: Spread };
    const ratio = data.ratio as {
      firstEvent: number;
      end: number;
      startedFirstEvent: number;
      startedEnd: number;
    };
    const spread = (entry: Spread) =>
      `${Math.round(entry.median)} ms (${Math.round(entry.min)}–${Math.round(entry.max)})`;
    const markdown = [
      '| measured (median, min–max) | A: hibernated session, a spare worker | B: plain cold query() with resume | A/B | A′: no spare, a worker started | A′/B |',
      '| --- | --- | --- | --- | --- | --- |',
      `| to the first event | ${spread(wake.firstEventMs)} | ${spread(cold.firstEventMs)} | ${ratio.firstEvent} | ${spread(started.firstEventMs)} | ${ratio.startedFirstEvent} |`,
      `| to the end of the turn | ${spread(wake.endMs)} | ${spread(cold.endMs)} | ${ratio.end} | ${spread(started.endMs)} | ${ratio.startedEnd} |`,
    ].join('\n');
    return { markdown, data };
  },
};
