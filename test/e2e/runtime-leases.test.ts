/**
 * At most one live worker per session: racing resumes, a second process of one execution, and a
 * lease owner frozen past its lease.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { type ExecutionRecord, LeaseLostError, type Runtime } from '../../src/index.js';
import {
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  processState,
  readJournal,
  readUntil,
  repoRoot,
  runCli,
  timesSent,
  waitFor,
  workerLog,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** A session whose first turn is over and whose worker has stopped. */
async function stoppedSession(h: Harness): Promise<{ sessionId: string; first: ExecutionRecord }> {
  const { session } = await h.runtime.createSession({
    backend: h.backend,
    prompt: 'prompt one',
    cwd: h.cwd,
    messageId: 'm-1',
  });
  await readUntil(h.runtime, session.id, isEvent('work.settled'));
  const stopping = await h.runtime.stop(session.id);
  await readUntil(h.runtime, session.id, isEvent('execution.stopped', stopping?.id));
  await waitFor(() => !isRunning(stopping!.pid!), { what: 'the first worker to exit' });
  return { sessionId: session.id, first: stopping! };
}

/**
 * Watches the session's workers while a race settles: no moment may see two of them running their
 * agent process (`claude`, or a turn's `codex`). Returns the most seen at once.
 */
function watchWorkers(runtime: Runtime, sessionId: string): { stop: () => Promise<number> } {
  let most = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const executions = await runtime.store.listExecutions(sessionId);
      const withAgent = executions.filter(
        (execution) =>
          execution.pid !== null && isRunning(execution.pid) && childrenOf(execution.pid).length > 0,
      );
      most = Math.max(most, withAgent.length);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return most;
    },
  };
}

/** After a race: exactly one new execution holds the lease, every other one failed with lease_held. */
async function expectOneWinner(h: Harness, sessionId: string, previous: ExecutionRecord) {
  const settled = await waitFor(
    async () => {
      const executions = (await h.runtime.listExecutions(sessionId)).filter(
        (each) => each.id !== previous.id,
      );
      return executions.length >= 2 && executions.every((each) => each.state !== 'starting')
        ? executions
        : null;
    },
    { what: 'both racing workers to settle' },
  );
  const winners = settled.filter((each) => each.state === 'idle' || each.state === 'running');
  const losers = settled.filter((each) => each.state === 'failed');
  expect(winners).toHaveLength(1);
  expect(losers.length).toBe(settled.length - 1);
  for (const loser of losers) {
    expect(loser.error?.code).toBe('lease_held');
    expect(loser.epoch).toBe(0);
    await waitFor(() => !isRunning(loser.pid!), { what: 'the losing worker to exit' });
  }
  const winner = winners[0]!;
  expect(winner.epoch).toBe(previous.epoch + 1);
  const lease = await h.runtime.store.getLease(sessionId);
  expect([lease?.owner, lease?.epoch]).toEqual([winner.id, winner.epoch]);
  return winner;
}

describe.each(backends)('leases: racing resumes (%s)', (backend) => {
  it('two runtimes resuming at once: exactly one worker takes the lease, the other fails with lease_held', async () => {
    harness = await createHarness({ backend, script: [{ text: 'one' }, { text: 'two' }] });
    const h = harness;
    const { sessionId, first } = await stoppedSession(h);
    const [left, right] = [await h.openRuntime(), await h.openRuntime()];
    const watch = watchWorkers(h.runtime, sessionId);
    const results = await Promise.allSettled([left.resume(sessionId), right.resume(sessionId)]);
    expect(results.some((result) => result.status === 'fulfilled')).toBe(true);
    for (const result of results) {
      if (result.status === 'rejected')
        expect((result.reason as { code?: string }).code).toBe('invalid_state');
    }
    const winner = await expectOneWinner(h, sessionId, first);
    await readUntil(h.runtime, sessionId, isEvent('execution.started', winner.id));

    const before = (await readJournal(h.runtime, sessionId)).length;
    const input = await h.runtime.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
    await readUntil(h.runtime, sessionId, isEvent('work.settled', winner.id), { after: before });
    expect(await watch.stop()).toBeLessThanOrEqual(1);
    expect((await h.runtime.listInputs(sessionId)).find((each) => each.id === input.id)?.executionId).toBe(
      winner.id,
    );
    expect(timesSent(h.model, 'prompt two')).toBe(1);
    const journal = await checkGuarantees(h.runtime, sessionId, {
      acknowledged: ['m-1', 'm-2'],
      model: h.model,
    });
    expect(journal.filter(isEvent('execution.started')).map((event) => dataOf(event).executionId)).toEqual([
      first.id,
      winner.id,
    ]);
  });

  it('two `agentd resume` processes at once: one worker wins, never two live', async () => {
    harness = await createHarness({ backend, script: [{ text: 'one' }, { text: 'two' }] });
    const h = harness;
    const { sessionId, first } = await stoppedSession(h);
    const watch = watchWorkers(h.runtime, sessionId);
    const args = ['resume', sessionId, '--data-dir', h.dataDir];
    const results = await Promise.all([runCli(args, h.env), runCli(args, h.env)]);
    const started = results.filter((result) => result.code === 0);
    expect(started.length).toBeGreaterThanOrEqual(1);
    for (const result of started) expect(result.stdout).toMatch(/^started [0-9a-f-]{36}\n$/);
    for (const result of results.filter((each) => each.code !== 0)) {
      expect(result.code).toBe(exitCodes.state);
      expect(result.stderr).toContain('already has a live worker');
    }
    // Either both started a worker (one then fails with lease_held), or one saw the other's.
    let winner: ExecutionRecord;
    if (started.length === 2) winner = await expectOneWinner(h, sessionId, first);
    else {
      const executions = (await h.runtime.listExecutions(sessionId)).filter((each) => each.id !== first.id);
      expect(executions).toHaveLength(1);
      winner = executions[0]!;
    }
    await readUntil(h.runtime, sessionId, isEvent('execution.started', winner.id));
    const before = (await readJournal(h.runtime, sessionId)).length;
    await h.runtime.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
    await readUntil(h.runtime, sessionId, isEvent('work.settled', winner.id), { after: before });
    expect(await watch.stop()).toBeLessThanOrEqual(1);
    expect(timesSent(h.model, 'prompt two')).toBe(1);
    await checkGuarantees(h.runtime, sessionId, { acknowledged: ['m-1', 'm-2'], model: h.model });
  });
});

/** Starts the worker process for an execution by hand, as the supervisor does, and waits for its end. */
async function runWorkerProcess(h: Harness, sessionId: string, executionId: string): Promise<number | null> {
  const child = h.track(
    spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'worker', 'worker-main.js'), h.dataDir, sessionId, executionId],
      {
        env: h.env,
        cwd: h.dataDir,
        detached: true,
        stdio: 'ignore',
      },
    ),
  );
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Waits until the session's journal has stopped growing (three looks 300 ms apart see one cursor). */
async function journalQuiet(h: Harness, sessionId: string): Promise<void> {
  let last = -1;
  let same = 0;
  await waitFor(
    async () => {
      const cursor = await h.runtime.lastCursor(sessionId);
      same = cursor === last ? same + 1 : 0;
      last = cursor;
      return same >= 2;
    },
    { intervalMs: 300, what: 'the journal to stop growing' },
  );
}

/** Everything a worker could write: the journal, the executions, the inputs and the lease. */
async function snapshot(h: Harness, sessionId: string) {
  return {
    journal: await readJournal(h.runtime, sessionId),
    executions: await h.runtime.store.listExecutions(sessionId),
    inputs: await h.runtime.store.listInputs(sessionId),
    // The live worker renews its lease on its own schedule: when it expires is not the duplicate's write.
    lease: await h.runtime.store.getLease(sessionId).then((lease) => lease && { ...lease, expiresAt: 0 }),
  };
}

describe.each(backends)('leases: a second process of one execution (%s)', (backend) => {
  it('started for a live execution, or for one that ended, it takes no lease, writes nothing and exits', async () => {
    harness = await createHarness({ backend, script: [{ text: 'one' }, { text: 'two' }] });
    const h = harness;
    const { session } = await h.runtime.createSession({
      backend,
      prompt: 'prompt one',
      cwd: h.cwd,
      messageId: 'm-1',
    });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const [live] = await h.runtime.listExecutions(session.id);
    // The live worker may journal a last SDK message after its turn settled (command_lifecycle).
    await journalQuiet(h, session.id);
    const before = await snapshot(h, session.id);

    // While the execution's own worker lives.
    expect(await runWorkerProcess(h, session.id, live!.id)).toBe(4);
    expect(await snapshot(h, session.id)).toEqual(before);
    expect(isRunning(live!.pid!)).toBe(true);
    const cursor = before.journal.at(-1)!.cursor;
    await h.runtime.send(session.id, { text: 'prompt two', messageId: 'm-2' });
    await readUntil(h.runtime, session.id, isEvent('work.settled', live!.id), { after: cursor });

    // After it stopped: the lease is free, and still not taken by a process of the ended execution.
    await h.runtime.stop(session.id);
    await readUntil(h.runtime, session.id, isEvent('execution.stopped', live!.id));
    await waitFor(() => !isRunning(live!.pid!), { what: 'the worker to exit' });
    const stopped = await snapshot(h, session.id);
    expect(await runWorkerProcess(h, session.id, live!.id)).toBe(4);
    expect(await snapshot(h, session.id)).toEqual(stopped);
    expect(stopped.lease?.owner ?? null).toBeNull();
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['m-1', 'm-2'], model: h.model });
  });
});

describe.each(backends)('leases: a lease owner frozen past its lease (%s)', (backend) => {
  it('SIGSTOP past the TTL, a resume takes over, SIGCONT: the old writes are refused and it exits', async () => {
    harness = await createHarness({
      backend,
      script: [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
      env: { AGENTD_LEASE_TTL_MS: '1500' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      backend,
      prompt: 'prompt one',
      cwd: h.cwd,
      messageId: 'm-1',
    });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const [old] = await h.runtime.listExecutions(session.id);
    const oldPid = old!.pid!;
    const oldAgent = childrenOf(oldPid);
    // claude lives between turns; codex runs one process per turn, so between them there is none.
    if (backend === 'claude') expect(oldAgent.length).toBeGreaterThan(0);

    // Frozen in the middle of a write, a worker would hold SQLite's write lock: freeze it once its
    // turn's last writes are done, as a hung worker between turns would be.
    await journalQuiet(h, session.id);
    killGroup(oldPid, 'SIGSTOP');
    await waitFor(() => processState(oldPid) === 'T', { what: 'the worker to be stopped' });
    await waitFor(async () => ((await h.runtime.store.getLease(session.id))?.expiresAt ?? 0) < Date.now(), {
      what: 'the lease to expire',
    });
    // Frozen is not dead: only an explicit resume takes over.
    expect((await h.runtime.getSession(session.id)).live?.id).toBe(old!.id);

    const taker = await h.openRuntime();
    const fresh = await taker.resume(session.id);
    const takenOver = (await taker.listExecutions(session.id)).find((each) => each.id === old!.id);
    expect([takenOver?.state, takenOver?.error?.code]).toEqual(['failed', 'lease_expired']);
    await readUntil(taker, session.id, isEvent('execution.started', fresh.id));
    const newEpoch = (await taker.listExecutions(session.id)).find((each) => each.id === fresh.id)!.epoch;
    expect(newEpoch).toBe(old!.epoch + 1);
    let before = (await readJournal(taker, session.id)).length;
    await taker.send(session.id, { text: 'prompt two', messageId: 'm-2' });
    await readUntil(taker, session.id, isEvent('work.settled', fresh.id), { after: before });
    const startedCursor = (await readJournal(taker, session.id)).find(
      isEvent('execution.started', fresh.id),
    )!.cursor;

    // The old owner wakes up: its renewal and writes are refused, it stops its claude and exits.
    killGroup(oldPid, 'SIGCONT');
    await waitFor(() => !isRunning(oldPid) && oldAgent.every((pid) => !isRunning(pid)), {
      what: 'the old worker and its agent process to exit',
    });
    const log = await waitFor(
      () => {
        const text = workerLog(h.dataDir, old!.id);
        return text.includes('lease lost') ? text : null;
      },
      { what: 'the old worker to log its lost lease' },
    );
    expect(log).toContain('lease lost');

    // Its records are not overwritten, the new owner is untouched, the journal has nothing of it since.
    const executions = await taker.listExecutions(session.id);
    expect(executions.find((each) => each.id === old!.id)?.state).toBe('failed');
    expect(executions.find((each) => each.id === old!.id)?.error?.code).toBe('lease_expired');
    expect(executions.find((each) => each.id === fresh.id)?.state).toBe('idle');
    const lease = await taker.store.getLease(session.id);
    expect([lease?.owner, lease?.epoch]).toEqual([fresh.id, newEpoch]);
    const journal = await checkGuarantees(taker, session.id, {
      acknowledged: ['m-1', 'm-2'],
      model: h.model,
    });
    expect(
      journal.filter((event) => event.executionId === old!.id && event.cursor > startedCursor),
      'events of the old owner after the take-over',
    ).toEqual([]);

    // Store level: a write with the old epoch is refused and changes nothing.
    const length = journal.length;
    const refused = (error: unknown) => error instanceof LeaseLostError && error.code === 'lease_lost';
    await expect(
      taker.store.appendEvents(session.id, [{ type: 'stale', data: {} }], {
        epoch: old!.epoch,
        now: Date.now(),
      }),
    ).rejects.toSatisfy(refused);
    await expect(
      taker.store.updateExecution(old!.id, { state: 'stopped', now: Date.now() }, { epoch: old!.epoch }),
    ).rejects.toSatisfy(refused);
    await expect(
      taker.store.renewLease({ sessionId: session.id, epoch: old!.epoch, ttlMs: 60_000, now: Date.now() }),
    ).resolves.toBe(false);
    expect(await taker.store.lastCursor(session.id)).toBe(length);

    // The new owner still works.
    before = (await readJournal(taker, session.id)).length;
    await taker.send(session.id, { text: 'prompt three', messageId: 'm-3' });
    await readUntil(taker, session.id, isEvent('work.settled', fresh.id), { after: before });
    await checkGuarantees(taker, session.id, { acknowledged: ['m-1', 'm-2', 'm-3'], model: h.model });
  });
});
