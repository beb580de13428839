/**
 * The PostgreSQL store side by side with SQLite, on a private PostgreSQL cluster started here
 * (test/postgres/cluster.ts; fsync off, as in the tests: figures show agentd's side, not the disk's):
 * events appended per second (1 and 100 per transaction), the wake of a reader on another node
 * after one append (LISTEN/NOTIFY against SQLite's 50 ms poll), taking over a lapsed lease, and
 * `runtime.send()` to the turn's first agent event on a live idle session (a real worker and
 * `claude` against the scripted model; BENCH_RUNS sends, default 10).
 *
 * Run: node --import tsx bench/scripts/postgres.ts   (prints one JSON object to stdout)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { NewEvent, Store } from '../../src/store/store.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { startCluster } from '../../test/postgres/cluster.js';
import { summarize } from '../lib/stats.js';

const SINGLE_EVENTS = 2_000;
const BATCH_SIZE = 100;
const BATCHED_EVENTS = 50_000;
const WAKES = 100;
const TAKEOVERS = 200;

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

const session = (id: string) => ({ id, provider: 'claude', cwd: '/bench', config: {}, now: Date.now() });

async function appends(store: Store) {
  await store.createSession(session('single'));
  await store.createSession(session('batched'));
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
  return {
    single: Math.round((SINGLE_EVENTS / singleMs) * 1000),
    batched: Math.round((BATCHED_EVENTS / batchedMs) * 1000),
  };
}

/**
 * One append on `writer`, and the time until a reader on `reader` (another node) has read it: woken
 * by the reader's change feed when it reaches across nodes, else by a 50 ms poll, as the runtime's
 * followers do.
 */
async function wakes(writer: Store, reader: Store) {
  await writer.createSession(session('wake'));
  const latencies: number[] = [];
  for (let index = 0; index < WAKES; index += 1) {
    const before = await reader.lastCursor('wake');
    let wake: (() => void) | undefined;
    const unwatch = reader.changes?.watch('events', () => wake?.());
    const seen = (async () => {
      for (;;) {
        if ((await reader.readEvents('wake', { after: before })).length > 0) return performance.now();
        const crossNode = reader.changes?.crossProcess ?? false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, crossNode ? 1000 : 50);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
    // Appends land at a random point of the reader's poll, as a worker's would.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
    const started = performance.now();
    await writer.appendEvents('wake', [sampleEvent(index)], { now: Date.now() });
    latencies.push((await seen) - started);
    unwatch?.();
  }
  return summarize(latencies);
}

/** Node B taking over a lease that node A let lapse: one acquisition after the expiry. */
async function takeovers(first: Store, second: Store, clock: number) {
  const times: number[] = [];
  for (let index = 0; index < TAKEOVERS; index += 1) {
    const id = `lease-${index}`;
    await first.createSession(session(id));
    const lease = { sessionId: id, pid: 1, processStartTime: null };
    await first.acquireLease({ ...lease, owner: 'node-a', ttlMs: clock, now: 0 });
    if (clock > 0) await new Promise((resolve) => setTimeout(resolve, clock + 1));
    const started = performance.now();
    const taken = await second.acquireLease({ ...lease, owner: 'node-b', ttlMs: 30_000, now: clock + 1 });
    times.push(performance.now() - started);
    if (taken?.epoch !== 2) throw new Error('the takeover did not happen');
  }
  return summarize(times);
}

/** The session's next event matching `until`, following from `after`. */
async function nextEvent(
  runtime: Runtime,
  sessionId: string,
  after: number,
  until: (type: string) => boolean,
) {
  for await (const event of runtime.events(sessionId, { after, follow: true })) {
    if (until(event.type)) return event;
  }
  throw new Error('the event stream ended');
}

/**
 * `runtime.send()` to the turn's first `agent.*` event read back, on a live idle session: the
 * input's journaling, the worker's wake, `claude`'s turn against the scripted model, and the
 * reader's wake (LISTEN/NOTIFY on PostgreSQL, the poll on SQLite).
 */
async function sendToFirstEvent(options: { directory: string; storeUrl?: string; runs: number }) {
  const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
  const cwd = join(options.directory, 'work');
  mkdirSync(cwd, { recursive: true });
  const env = {
    ...process.env,
    ...model.env(),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...(options.storeUrl ? { AGENTD_STORE_URL: options.storeUrl } : { AGENTD_STORE_URL: undefined }),
  };
  const runtime = await createRuntime({ dataDir: join(options.directory, 'data'), env });
  try {
    const { session } = await runtime.createSession({ prompt: 'warm up', cwd });
    await nextEvent(runtime, session.id, 0, (type) => type === 'work.settled');
    const times: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const after = await runtime.lastCursor(session.id);
      const started = performance.now();
      await runtime.send(session.id, { text: `ping ${run}` });
      const first = await nextEvent(runtime, session.id, after, (type) => type.startsWith('agent.'));
      times.push(performance.now() - started);
      await nextEvent(runtime, session.id, first.cursor, (type) => type === 'work.settled');
    }
    await runtime.stop(session.id);
    return summarize(times);
  } finally {
    await runtime.close();
    await model.close();
  }
}

async function main(): Promise<void> {
  const cluster = await startCluster();
  const directory = mkdtempSync(join(tmpdir(), 'agentd-bench-pg-'));
  try {
    const sqlitePath = join(directory, 'bench.db');
    const sqlite = [SqliteStore.open({ path: sqlitePath }), SqliteStore.open({ path: sqlitePath })] as const;
    const postgres = [
      await PostgresStore.open({ url: cluster.url }),
      await PostgresStore.open({ url: cluster.url }),
    ];
    const result = {
      benchmark: 'store.postgres',
      node: process.version,
      sqlite: {
        appends: await appends(sqlite[0]),
        wake: await wakes(sqlite[0], sqlite[1]),
        takeover: await takeovers(sqlite[0], sqlite[1], 0),
      },
      postgres: {
        appends: await appends(postgres[0]!),
        wake: await wakes(postgres[0]!, postgres[1]!),
        takeover: await takeovers(postgres[0]!, postgres[1]!, 0),
      },
    };
    for (const store of [...sqlite, ...postgres]) await store?.close();
    const runs = Number(process.env.BENCH_RUNS ?? 10);
    Object.assign(result.sqlite, {
      sendToFirstEvent: await sendToFirstEvent({ directory: join(directory, 'send-sqlite'), runs }),
    });
    Object.assign(result.postgres, {
      sendToFirstEvent: await sendToFirstEvent({
        directory: join(directory, 'send-postgres'),
        storeUrl: `${cluster.url}${cluster.url.includes('?') ? '&' : '?'}schema=bench_send`,
        runs,
      }),
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    cluster.destroy();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
