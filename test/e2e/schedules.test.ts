/**
 * Schedules through the runtime and the CLI, with the real `claude` against the scripted model and
 * time moved by an injected clock (no test waits for a real occurrence): two nodes on one
 * PostgreSQL database fire an occurrence once; missed occurrences follow the schedule's policy;
 * paused and removed schedules fire nothing.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { startScheduleTicker } from '../../src/runtime/schedules.js';
import { startServer } from '../../src/server/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { testPostgresUrl } from '../postgres/test-database.js';
import {
  dataOf,
  type Env,
  isEvent,
  isolatedEnv,
  killWorkers,
  readJournal,
  readUntil,
  runCli,
  timesSent,
  waitFor,
} from './helpers.js';
import { type Cluster, createCluster } from './postgres-nodes.js';

const url = testPostgresUrl('schedules.test.ts');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A clock the test moves by hand. */
function manualClock(start: string) {
  let now = Date.parse(start);
  return {
    now: () => now,
    set: (at: string) => {
      now = Date.parse(at);
    },
  };
}

describe.skipIf(url === undefined)('schedules on PostgreSQL', () => {
  it('two nodes ticking on one database fire an occurrence once: one firing, one session, one prompt to the model', async () => {
    const cluster: Cluster = await createCluster({ url: url!, script: [{ text: 'Report sent.' }] });
    cleanups.push(() => cluster.cleanup());
    const clock = manualClock('2026-12-07T06:30:00Z'); // a Monday, 07:30 in Berlin
    const nodes: Runtime[] = [];
    for (const name of ['a', 'b']) {
      const node = cluster.node(name);
      const runtime = await createRuntime({ dataDir: node.dataDir, env: node.env, clock: clock.now });
      nodes.push(runtime);
      const ticker = startScheduleTicker({ schedules: runtime.schedules, tickMs: 20 });
      cleanups.push(async () => {
        await ticker.close();
        await runtime.close();
      });
    }
    const [a, b] = nodes as [Runtime, Runtime];
    const schedule = await a.schedules.add({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      role: 'default',
      prompt: 'Morning report, please',
      cwd: cluster.cwd,
    });
    // 09:00 in Berlin is 08:00 UTC in winter.
    expect(schedule.nextAt).toBe(Date.parse('2026-12-07T08:00:00Z'));
    expect((await b.schedules.get(schedule.id)).schedule.id).toBe(schedule.id);

    clock.set('2026-12-07T08:00:02Z');
    // Besides both tickers, both nodes race by hand as well.
    await Promise.all([a.schedules.tick(), b.schedules.tick(), a.schedules.tick(), b.schedules.tick()]);
    const fired = await waitFor(
      async () => (await b.schedules.get(schedule.id)).firings.find((firing) => firing.state === 'fired'),
      { what: 'the firing' },
    );
    const details = await a.schedules.get(schedule.id);
    expect(details.firings).toHaveLength(1);
    expect(fired).toMatchObject({ occurrence: Date.parse('2026-12-07T08:00:00Z'), missed: 0 });
    expect(details.schedule.nextAt).toBe(Date.parse('2026-12-08T08:00:00Z'));
    const sessions = await a.listSessions();
    expect(sessions.map((session) => session.id)).toEqual([fired.sessionId]);

    const sessionId = fired.sessionId!;
    await readUntil(a, sessionId, isEvent('work.settled'));
    expect(timesSent(cluster.model, 'Morning report, please')).toBe(1);
    const journal = await readJournal(a, sessionId);
    const firedEvent = journal.find((event) => event.type === 'schedule.fired')!;
    expect(dataOf(firedEvent)).toEqual({
      scheduleId: schedule.id,
      occurrence: '2026-12-07T08:00:00.000Z',
      late: false,
      missed: 0,
      messageId: `schedule:${schedule.id}:${Date.parse('2026-12-07T08:00:00Z')}`,
    });
    const accepted = journal.find((event) => event.type === 'input.accepted')!;
    expect(accepted.cursor).toBeGreaterThan(firedEvent.cursor);
    // Ticks later in the same minute find nothing more to do on either node.
    await Promise.all([a.schedules.tick(), b.schedules.tick()]);
    expect((await a.schedules.get(schedule.id)).firings).toHaveLength(1);
    expect(await b.listSessions()).toHaveLength(1);
  });
});

describe('schedules on SQLite', () => {
  async function harness(script: Parameters<typeof startScriptedModel>[0]['script'], start: string) {
    const root = mkdtempSync(join(tmpdir(), 'agentd-schedules-'));
    const cwd = join(root, 'work');
    mkdirSync(cwd, { recursive: true });
    const model = await startScriptedModel({ script });
    const env: Env = isolatedEnv(root, model.env());
    const dataDir = join(root, 'data');
    const clock = manualClock(start);
    const runtime = await createRuntime({ dataDir, env, clock: clock.now });
    cleanups.push(async () => {
      await killWorkers(dataDir);
      await runtime.close();
      await model.close();
      rmSync(root, { recursive: true, force: true });
    });
    return { runtime, model, cwd, clock, env, dataDir };
  }

  it('missed occurrences after downtime: skip fires none, run_once fires the latest once, late; both go on on time', async () => {
    const h = await harness(
      [{ text: 'caught up' }, { text: 'on time one' }, { text: 'on time two' }],
      '2026-12-01T10:30:00Z',
    );
    const base = { cron: '0 * * * *', prompt: 'Hourly check', cwd: h.cwd, role: 'default' } as const;
    const skip = await h.runtime.schedules.add({ ...base, id: 'hourly-skip' });
    const once = await h.runtime.schedules.add({ ...base, id: 'hourly-once', missed: 'run_once' });
    expect(skip.missed).toBe('skip');

    // Down from 10:30 to 13:30: 11:00, 12:00 and 13:00 passed unseen.
    h.clock.set('2026-12-01T13:30:00Z');
    const firings = await h.runtime.schedules.tick();
    expect(firings.map((firing) => [firing.scheduleId, firing.state])).toEqual([['hourly-once', 'fired']]);
    const skipped = await h.runtime.schedules.get('hourly-skip');
    expect(skipped.firings).toEqual([
      expect.objectContaining({
        occurrence: Date.parse('2026-12-01T13:00:00Z'),
        state: 'skipped',
        missed: 2,
        sessionId: null,
      }),
    ]);
    expect(skipped.schedule.nextAt).toBe(Date.parse('2026-12-01T14:00:00Z'));
    const caughtUp = (await h.runtime.schedules.get('hourly-once')).firings;
    expect(caughtUp).toEqual([
      expect.objectContaining({ occurrence: Date.parse('2026-12-01T13:00:00Z'), state: 'fired', missed: 2 }),
    ]);
    const lateSession = caughtUp[0]!.sessionId!;
    await readUntil(h.runtime, lateSession, isEvent('work.settled'));
    const lateEvent = (await readJournal(h.runtime, lateSession)).find(
      (event) => event.type === 'schedule.fired',
    )!;
    expect(dataOf(lateEvent)).toMatchObject({
      occurrence: '2026-12-01T13:00:00.000Z',
      late: true,
      missed: 2,
    });
    expect(await h.runtime.listSessions()).toHaveLength(1);

    // 14:00 is seen on time: both fire, whatever their policy.
    h.clock.set('2026-12-01T14:00:05Z');
    const onTime = await h.runtime.schedules.tick();
    expect(onTime.map((firing) => [firing.scheduleId, firing.state, firing.missed]).sort()).toEqual([
      ['hourly-once', 'fired', 0],
      ['hourly-skip', 'fired', 0],
    ]);
    for (const firing of onTime) await readUntil(h.runtime, firing.sessionId!, isEvent('work.settled'));
    expect(await h.runtime.listSessions()).toHaveLength(3);
    expect(timesSent(h.model, 'Hourly check')).toBe(3);
    expect(once.state).toBe('active');
  });

  it('schedule add|list|show|pause|resume|remove on the CLI: paused and removed schedules fire nothing; bad input is a clear error', async () => {
    const h = await harness([{ text: 'fired after resume' }], '2026-12-01T10:30:00Z');
    const cli = (...args: string[]) => runCli([...args, '--data-dir', h.dataDir], h.env);
    const added = await cli(
      'schedule',
      'add',
      '--cron',
      '0 9 * * 1-5',
      '--tz',
      'Europe/Berlin',
      '--role',
      'default',
      '--cwd',
      h.cwd,
      '--id',
      'weekday',
      '--json',
      'Weekday prompt',
    );
    expect(added.stderr).toBe('');
    expect(JSON.parse(added.stdout).schedule).toMatchObject({
      id: 'weekday',
      timezone: 'Europe/Berlin',
      state: 'active',
    });
    const listed = JSON.parse((await cli('schedule', 'list', '--json')).stdout);
    expect(listed.schedules.map((schedule: { id: string }) => schedule.id)).toEqual(['weekday']);

    const badCron = await cli('schedule', 'add', '--cron', '0 9 * *', '--role', 'default', 'x');
    expect(badCron.code).not.toBe(0);
    expect(badCron.stderr).toContain('five fields');
    expect(badCron.stderr).not.toContain('    at ');
    const badZone = await cli(
      'schedule',
      'add',
      '--cron',
      '0 9 * * *',
      '--tz',
      'Mars/Olympus',
      '--role',
      'default',
      'x',
    );
    expect(badZone.stderr).toContain('unknown time zone Mars/Olympus');

    const paused = JSON.parse((await cli('schedule', 'pause', 'weekday', '--json')).stdout);
    expect(paused.schedule.state).toBe('paused');
    // Wednesday 09:00 in Berlin passes while paused: nothing fires.
    h.clock.set('2026-12-02T08:00:10Z');
    expect(await h.runtime.schedules.tick()).toEqual([]);
    expect((await h.runtime.schedules.get('weekday')).firings).toEqual([]);

    // Resumed (by the runtime, at the test's clock), it goes on from the next occurrence: Thursday.
    const resumed = await h.runtime.schedules.resume('weekday');
    expect(resumed.nextAt).toBe(Date.parse('2026-12-03T08:00:00Z'));
    h.clock.set('2026-12-03T08:00:01Z');
    const [firing] = await h.runtime.schedules.tick();
    expect(firing).toMatchObject({ state: 'fired' });
    await readUntil(h.runtime, firing!.sessionId!, isEvent('work.settled'));
    const shown = await cli('schedule', 'show', 'weekday');
    expect(shown.stdout).toContain('2026-12-03T08:00:00.000Z  fired');

    const removed = await cli('schedule', 'remove', 'weekday');
    expect(removed.stdout).toContain('removed schedule weekday');
    h.clock.set('2026-12-04T08:00:01Z');
    expect(await h.runtime.schedules.tick()).toEqual([]);
    const gone = await cli('schedule', 'show', 'weekday', '--json');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('schedule weekday not found');
    expect(await h.runtime.listSessions()).toHaveLength(1);
  });
});

describe('schedules over HTTP', () => {
  it('POST/GET/pause/resume/DELETE /v1/schedules, documented in /openapi.json; bad input is 400 invalid_input and changes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentd-schedules-http-'));
    const clock = manualClock('2026-12-01T10:30:00Z');
    const server = await startServer({
      port: 0,
      dataDir: join(root, 'data'),
      env: isolatedEnv(root, {}),
      a2a: false,
      clock: clock.now,
    });
    cleanups.push(async () => {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    });
    const call = async (path: string, method = 'GET', body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    for (const bad of [
      { cron: '61 * * * *', role: 'default', prompt: 'x' },
      { cron: '0 9 * * *', role: 'default', channel: 'c', prompt: 'x' },
      { cron: '0 9 * * *', role: 'default', prompt: 'x', missed: 'always' },
      { cron: '0 9 * * *', role: 'default', prompt: 'x', timezone: 'Nowhere/Land' },
    ]) {
      const refused = await call('/v1/schedules', 'POST', bad);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ error: { code: 'invalid_input' } });
    }
    expect((await call('/v1/schedules')).json).toEqual({ schedules: [] });
    const missingRole = await call('/v1/schedules', 'POST', {
      cron: '0 9 * * *',
      role: 'nobody',
      prompt: 'x',
    });
    expect(missingRole.status).toBe(404);

    const created = await call('/v1/schedules', 'POST', {
      id: 'standup',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      role: 'default',
      prompt: 'Standup notes',
      missed: 'run_once',
    });
    expect(created.status).toBe(201);
    expect(created.json.schedule).toMatchObject({
      id: 'standup',
      missed: 'run_once',
      state: 'active',
      nextAt: Date.parse('2026-12-02T08:00:00Z'),
    });
    expect((await call('/v1/schedules/standup')).json).toMatchObject({
      schedule: { id: 'standup' },
      firings: [],
    });
    expect((await call('/v1/schedules/standup/pause', 'POST')).json).toMatchObject({
      schedule: { state: 'paused' },
    });
    clock.set('2026-12-03T12:00:00Z');
    expect((await call('/v1/schedules/standup/resume', 'POST')).json).toMatchObject({
      schedule: { state: 'active', nextAt: Date.parse('2026-12-04T08:00:00Z') },
    });
    expect((await call('/v1/schedules/standup', 'DELETE')).status).toBe(204);
    expect((await call('/v1/schedules/standup')).json).toMatchObject({ error: { code: 'not_found' } });

    const paths = Object.keys((await call('/openapi.json')).json.paths as Record<string, unknown>);
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/schedules', '/v1/schedules/{id}/pause', '/v1/webhooks/{id}/deliveries']),
    );
  });
});
