import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from './sqlite-store.js';

const childScript = fileURLToPath(new URL('./test-fixtures/store-race-child.ts', import.meta.url));
const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'agentd-sqlite-processes-'));

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

interface Racer {
  child: ChildProcess;
  ready: Promise<void>;
  results: Promise<Array<number | null>>;
}

function startRacer(options: {
  path: string;
  mode: 'lease' | 'append' | 'role';
  name: string;
  count: number;
  offset?: number;
}): Racer {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      childScript,
      options.path,
      options.mode,
      options.name,
      String(options.count),
      String(options.offset ?? 0),
    ],
    { cwd: projectRoot, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`racer ${options.name} exited before ready: ${stderr}`)));
  });
  const results = new Promise<Array<number | null>>((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`racer ${options.name} exited with ${code}: ${stderr}`));
        return;
      }
      resolve(JSON.parse(stdout.slice('ready\n'.length)) as Array<number | null>);
    });
  });
  ready.catch(() => {});
  return { child, ready, results };
}

/** Starts the racers, lets all of them open the file, then releases them at once. */
async function race(racers: Racer[]): Promise<Array<Array<number | null>>> {
  await Promise.all(racers.map((racer) => racer.ready));
  for (const racer of racers) {
    racer.child.stdin?.write('go\n');
  }
  return Promise.all(racers.map((racer) => racer.results));
}

async function prepare(path: string, sessions: number): Promise<SqliteStore> {
  const store = SqliteStore.open({ path });
  for (let index = 0; index < sessions; index += 1) {
    await store.createSession({ id: `race-${index}`, provider: 'claude', cwd: '/', config: {}, now: 1 });
  }
  return store;
}

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('SqliteStore across processes', () => {
  it('acquireLease: of processes racing on the same file, exactly one wins each session', async () => {
    const path = join(directory, 'leases.db');
    const sessions = 150;
    const store = await prepare(path, sessions);
    const names = ['racer-a', 'racer-b', 'racer-c'];
    const results = await race(
      names.map((name, index) =>
        startRacer({ path, mode: 'lease', name, count: sessions, offset: (index * sessions) / names.length }),
      ),
    );
    const wins = new Map<string, number>();
    for (let index = 0; index < sessions; index += 1) {
      const winners = names.filter((_, racer) => results[racer]?.[index] !== null);
      expect(winners, `session race-${index}`).toHaveLength(1);
      const lease = await store.getLease(`race-${index}`);
      expect(lease).toMatchObject({ owner: winners[0], epoch: 1 });
      wins.set(winners[0]!, (wins.get(winners[0]!) ?? 0) + 1);
    }
    // More than one racer won: they really overlapped instead of running one after another. (Not
    // all of them: SQLite's busy handler backs off, so a waiting process may be starved for a while.)
    expect(wins.size).toBeGreaterThanOrEqual(2);
    await store.close();
  });

  it('appendEvents: processes appending to one session get gapless unique cursors', async () => {
    const path = join(directory, 'events.db');
    const store = await prepare(path, 1);
    const perRacer = 150;
    const results = await race(
      ['racer-a', 'racer-b'].map((name) => startRacer({ path, mode: 'append', name, count: perRacer })),
    );
    for (const cursors of results) {
      // Within one process each append sees the ones before it.
      const numbers = cursors.map((cursor) => cursor ?? 0);
      expect(numbers).toEqual([...numbers].sort((left, right) => left - right));
    }
    const all = results.flat().sort((left, right) => (left ?? 0) - (right ?? 0));
    expect(all).toEqual(Array.from({ length: perRacer * 2 }, (_, index) => index + 1));
    const stored = await store.readEvents('race-0', { limit: perRacer * 3 });
    expect(stored.map((event) => event.cursor)).toEqual(all);
    expect(await store.lastCursor('race-0')).toBe(perRacer * 2);
    await store.close();
  });

  it("changes: another process's commits wake the readers of that session only, after each commit is visible", async () => {
    const path = join(directory, 'changes.db');
    const store = await prepare(path, 2);
    const unwatched = SqliteStore.open({ path, watchOthers: false });
    const woken: string[] = [];
    // What a woken reader reads: the wake comes after the commit, so the last one sees the last event.
    const seenAtWake: number[] = [];
    const stop = store.changes!.watch('events', (sessionId) => {
      woken.push(String(sessionId));
      void store.lastCursor('race-0').then((cursor) => seenAtWake.push(cursor));
    });
    const notWoken: string[] = [];
    const stopUnwatched = unwatched.changes!.watch('events', (sessionId) => notWoken.push(String(sessionId)));
    expect(store.changes!.crossProcess).toBe(true);
    expect(unwatched.changes!.crossProcess).toBe(false);
    const count = 20;
    await race([startRacer({ path, mode: 'append', name: 'writer', count })]);
    await waitUntil(() => seenAtWake.includes(count));
    expect(new Set(woken)).toEqual(new Set(['race-0']));
    expect(notWoken).toEqual([]);
    stop();
    stopUnwatched();
    await unwatched.close();
    await store.close();
  });

  it('updateRole: processes updating one role write distinct versions, each one higher', async () => {
    const path = join(directory, 'roles.db');
    const store = await prepare(path, 0);
    await store.ensureOrganization({ id: 'race', now: 1 });
    await store.createRole({ organization: 'race', name: 'reviewer', now: 1 });
    const perRacer = 60;
    const results = await race(
      ['racer-a', 'racer-b'].map((name) => startRacer({ path, mode: 'role', name, count: perRacer })),
    );
    const all = results.flat().sort((left, right) => (left ?? 0) - (right ?? 0));
    expect(all).toEqual(Array.from({ length: perRacer * 2 }, (_, index) => index + 2));
    const history = await store.roleHistory('race', 'reviewer');
    expect(history.map((role) => role.version)).toEqual([1, ...all]);
    await store.close();
  });
});
