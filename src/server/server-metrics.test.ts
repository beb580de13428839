import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshSchema, testPostgresUrl } from '../../test/postgres/test-database.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import type { NewEvent, Store } from '../store/store.js';
import { ServerMetrics } from './server-metrics.js';

const url = testPostgresUrl('server-metrics.test.ts');

/** The real store, counting the journal reads that go through it. */
function counting(store: Store): { store: Store; reads: { perSession: number; across: number } } {
  const reads = { perSession: 0, across: 0 };
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'readEvents') reads.perSession += 1;
        if (property === 'readEventsAcross') reads.across += 1;
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, reads };
}

function turn(model: string, options: { output: number; cost: number; isError?: boolean }): NewEvent {
  const usage = {
    inputTokens: 10,
    outputTokens: options.output,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
  };
  return {
    type: 'agent.turn.completed',
    data: {
      subtype: options.isError ? 'error_during_execution' : 'success',
      isError: options.isError ?? false,
      result: 'done',
      sessionId: 'native',
      usage,
      costUsd: options.cost,
      numTurns: 1,
      durationMs: 1500,
      durationApiMs: 1000,
      modelUsage: { [model]: { ...usage, costUsd: options.cost } },
      inputIds: [],
    },
  };
}

const message: NewEvent = { type: 'agent.message', data: { text: 'hi', messageId: null } };
const failure: NewEvent = {
  type: 'agent.error',
  data: { error: { code: 'rate_limit', message: 'slow down', transient: true } },
};

/** The value of one sample line, such as `agentd_queries_total{status="success",model="m"}`. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

const stores: Array<[string, (() => Promise<Store>) | undefined]> = [
  [
    'sqlite',
    async () => SqliteStore.open({ path: join(mkdtempSync(join(tmpdir(), 'agentd-metrics-')), 'agentd.db') }),
  ],
  [
    'postgres',
    url === undefined ? undefined : () => PostgresStore.open({ url, schema: freshSchema('metrics') }),
  ],
];

let runtime: Runtime | undefined;
const roots: string[] = [];
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe.each(stores)('ServerMetrics on %s', (_name, open) => {
  it.skipIf(open === undefined)(
    'journal counters over several sessions: counted from the baseline on, each event once, by one cross-session query per scrape',
    async () => {
      const { store, reads } = counting(await open!());
      const root = mkdtempSync(join(tmpdir(), 'agentd-metrics-root-'));
      roots.push(root);
      runtime = await createRuntime({ dataDir: join(root, 'data'), store, env: {} });
      const now = Date.now();
      const session = async (id: string, model: string) =>
        (await store.createSession({ id, provider: 'claude', model, cwd: root, config: {}, now })).session;
      const [a, b] = [await session('s-a', 'model-a'), await session('s-b', 'model-b')];
      // Before the baseline: not counted.
      await store.appendEvents(a.id, [turn('model-a', { output: 1000, cost: 9 })], { now });
      const metrics = new ServerMetrics({ runtime, processMetrics: false });
      await metrics.baseline();

      await store.appendEvents(a.id, [message, turn('model-a', { output: 5, cost: 0.5 })], { now });
      await store.appendEvents(b.id, [turn('model-b', { output: 7, cost: 0.25 }), failure], { now });
      await store.appendEvents(b.id, [turn('model-b', { output: 3, cost: 0.25, isError: true })], { now });
      // A session created after the baseline counts from its start.
      const c = await session('s-c', 'model-a');
      await store.appendEvents(c.id, [turn('model-a', { output: 2, cost: 1 })], { now });
      for (let index = 0; index < 8; index++) await session(`quiet-${index}`, 'model-a');

      const before = { ...reads };
      const text = await metrics.render();
      expect([reads.across - before.across, reads.perSession - before.perSession]).toEqual([1, 0]);
      expect(sample(text, 'agentd_queries_total', 'status="success",model="model-a"')).toBe(2);
      expect(sample(text, 'agentd_queries_total', 'status="success",model="model-b"')).toBe(1);
      expect(sample(text, 'agentd_queries_total', 'status="error",model="model-b"')).toBe(1);
      expect(sample(text, 'agentd_tokens_total', 'direction="output",model="model-a"')).toBe(7);
      expect(sample(text, 'agentd_tokens_total', 'direction="output",model="model-b"')).toBe(10);
      expect(sample(text, 'agentd_tokens_total', 'direction="input",model="model-b"')).toBe(20);
      expect(sample(text, 'agentd_cost_usd_total', 'model="model-a"')).toBe(1.5);
      expect(sample(text, 'agentd_errors_total', 'error_type="rate_limit",is_transient="true"')).toBe(1);
      expect(sample(text, 'agentd_journal_events_total', 'type="agent.turn.completed"')).toBe(4);
      expect(sample(text, 'agentd_journal_events_total', 'type="agent.message"')).toBe(1);
      expect(text).toContain('agentd_sessions_active 11');

      // The next scrape counts only what came since, still in one query.
      await store.appendEvents(b.id, [turn('model-b', { output: 1, cost: 0.5 })], { now });
      const again = await metrics.render();
      expect(reads.across - before.across).toBe(2);
      expect(sample(again, 'agentd_queries_total', 'status="success",model="model-b"')).toBe(2);
      expect(sample(again, 'agentd_queries_total', 'status="success",model="model-a"')).toBe(2);
      expect(sample(again, 'agentd_journal_events_total', 'type="agent.turn.completed"')).toBe(5);
    },
    60_000,
  );
});
