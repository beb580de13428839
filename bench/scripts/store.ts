/**
 * Store throughput on a temporary SQLite file (WAL, synchronous=FULL): events appended per second
 * one per transaction and 100 per transaction, and events read back per second.
 *
 * Run: node --import tsx bench/scripts/store.ts   (prints one JSON object to stdout)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { NewEvent } from '../../src/store/store.js';

const SINGLE_EVENTS = 2_000;
const BATCH_SIZE = 100;
const BATCHED_EVENTS = 100_000;
const READ_PAGE = 1_000;

/** A presentation event of typical size (~300 bytes of JSON). */
function sampleEvent(index: number): NewEvent {
  return {
    type: 'agent.message',
    executionId: 'exec-bench',
    data: {
      index,
      role: 'assistant',
      text: `Step ${index}: read the file, found the function, and proposed a two-line change to fix the off-by-one.`,
      usage: { input_tokens: 1200 + index, output_tokens: 87, cache_read_input_tokens: 1024 },
    },
  };
}

function perSecond(count: number, milliseconds: number): number {
  return Math.round((count / milliseconds) * 1000);
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  const store = SqliteStore.open({ path: join(directory, 'bench.db') });
  try {
    await store.createSession({
      id: 'single',
      provider: 'claude',
      cwd: directory,
      config: {},
      now: Date.now(),
    });
    await store.createSession({
      id: 'batched',
      provider: 'claude',
      cwd: directory,
      config: {},
      now: Date.now(),
    });

    let started = performance.now();
    for (let index = 0; index < SINGLE_EVENTS; index += 1) {
      await store.appendEvents('single', [sampleEvent(index)], { now: Date.now() });
    }
    const singleMs = performance.now() - started;

    const batch = Array.from({ length: BATCH_SIZE }, (_, index) => sampleEvent(index));
    started = performance.now();
    for (let appended = 0; appended < BATCHED_EVENTS; appended += BATCH_SIZE) {
      await store.appendEvents('batched', batch, { now: Date.now() });
    }
    const batchedMs = performance.now() - started;

    started = performance.now();
    let read = 0;
    for (let after = 0; ; ) {
      const page = await store.readEvents('batched', { after, limit: READ_PAGE });
      if (page.length === 0) break;
      read += page.length;
      after = page.at(-1)!.cursor;
    }
    const readMs = performance.now() - started;
    if (read !== BATCHED_EVENTS) {
      throw new Error(`read ${read} events, expected ${BATCHED_EVENTS}`);
    }

    const result = {
      benchmark: 'store.sqlite.events',
      node: process.version,
      cpus: cpus().length,
      journalMode: store.pragma('journal_mode'),
      synchronous: store.pragma('synchronous'),
      appendSingle: {
        events: SINGLE_EVENTS,
        ms: Math.round(singleMs),
        eventsPerSecond: perSecond(SINGLE_EVENTS, singleMs),
      },
      appendBatched: {
        events: BATCHED_EVENTS,
        batchSize: BATCH_SIZE,
        ms: Math.round(batchedMs),
        eventsPerSecond: perSecond(BATCHED_EVENTS, batchedMs),
      },
      read: {
        events: read,
        pageSize: READ_PAGE,
        ms: Math.round(readMs),
        eventsPerSecond: perSecond(read, readMs),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
