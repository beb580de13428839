import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/server/serve.js';
import type { BenchCase } from '../lib/bench-case.js';
import { summarize } from '../lib/stats.js';

const eventsPerRun = 5000;
const subscriberCounts = [1, 10, 100];

/** Reads an SSE stream until it has seen `count` events; returns how many it saw. */
async function consume(url: string, count: number): Promise<number> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
  if (!response.body) throw new Error('no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let seen = 0;
  while (seen < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary !== -1) {
      if (buffer.slice(0, boundary).includes('\nid: ') || buffer.startsWith('id: ')) seen++;
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return seen;
}

/**
 * Journal → SSE delivery: events appended to one session's journal while 1, 10 or 100 clients
 * follow it over HTTP; figures are events delivered per second across all subscribers.
 */
export const sseCase: BenchCase = {
  name: 'sse',
  description: `SSE delivery: ${eventsPerRun} journal events to 1, 10 and 100 subscribers of one session (agentd serve, SQLite, loopback)`,
  async run({ runs, log }) {
    const rounds = Math.max(1, Math.min(runs, 3));
    const dataDir = mkdtempSync(join(tmpdir(), 'agentd-bench-sse-'));
    const server = await startServer({
      port: 0,
      dataDir,
      // BENCH_STORE_URL=postgres://... runs the same measurement on PostgreSQL (LISTEN/NOTIFY wakes).
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: 'bench',
        ...(process.env.BENCH_STORE_URL ? { AGENTD_STORE_URL: process.env.BENCH_STORE_URL } : {}),
      },
    });
    const rows: string[] = [
      '| subscribers | events delivered/s (median) | min–max | time to deliver all (median) |',
      '| --- | --- | --- | --- |',
    ];
    const data: Record<string, unknown> = {};
    try {
      for (const subscribers of subscriberCounts) {
        const rates: number[] = [];
        const durations: number[] = [];
        for (let round = 0; round < rounds; round++) {
          const { session } = await server.runtime.createSession({ cwd: dataDir });
          const url = `${server.url}/v1/sessions/${session.id}/events`;
          const started = performance.now();
          const consumers = Array.from({ length: subscribers }, () => consume(url, eventsPerRun));
          for (let sent = 0; sent < eventsPerRun; sent += 100) {
            const batch = Array.from({ length: 100 }, (_, index) => ({
              type: 'agent.message',
              data: { text: `event ${sent + index}`, messageId: null },
            }));
            await server.runtime.store.appendEvents(session.id, batch, { now: Date.now() });
          }
          const seen = await Promise.all(consumers);
          const elapsed = performance.now() - started;
          if (seen.some((count) => count !== eventsPerRun))
            throw new Error(`a subscriber missed events: ${seen.join(',')}`);
          rates.push((eventsPerRun * subscribers) / (elapsed / 1000));
          durations.push(elapsed);
          log(`  ${subscribers} subscribers: ${Math.round(rates.at(-1)!)} events/s`);
        }
        const rate = summarize(rates);
        const duration = summarize(durations);
        data[`subscribers_${subscribers}`] = { rates, durations };
        rows.push(
          `| ${subscribers} | ${Math.round(rate.median).toLocaleString('en')} | ${Math.round(rate.min).toLocaleString('en')}–${Math.round(rate.max).toLocaleString('en')} | ${Math.round(duration.median)} ms |`,
        );
      }
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    return { markdown: rows.join('\n'), data };
  },
};
