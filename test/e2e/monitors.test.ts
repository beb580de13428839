/**
 * Monitors: detached commands whose stdout lines are journaled as observations and delivered to
 * their session between turns, labelled with their source. Real detached workers and monitor
 * runners, the real SDK and `claude`, the scripted model; the CLI and a server as users run them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { readJournal as readTyped } from '../../src/journal/read-journal.js';
import type { MonitorView } from '../../src/monitor/monitor-ledger.js';
import type { RecordedRequest } from '../../src/testing/index.js';
import {
  checkGuarantees,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  lastUserText,
  linesOf,
  readJournal,
  readUntil,
  runCli,
  spawnCli,
  waitFor,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    script: (request: RecordedRequest) => ({ text: `echo: ${lastUserText(request).split('\n').at(-1)}` }),
    env: { AGENTD_IDLE_TIMEOUT_MS: '120000' },
  });
});
afterAll(async () => {
  // Runners are detached: end every monitor the tests left, and its command's group.
  if (h) {
    for (const session of await h.runtime.listSessions()) {
      for (const monitor of await h.runtime.monitors.list(session.id).catch(() => [])) {
        killGroup(monitor.commandPid);
        killGroup(monitor.pid);
      }
    }
  }
  await h?.cleanup();
});

async function settledSession(prompt: string, runtime: Runtime = h.runtime): Promise<string> {
  const { session } = await runtime.createSession({ prompt, cwd: h.cwd });
  await readUntil(runtime, session.id, isEvent('work.settled'));
  return session.id;
}

async function ended(sessionId: string, monitorId: string, timeoutMs = 30_000): Promise<MonitorView> {
  return waitFor(
    async () => {
      const monitor = await h.runtime.monitors.get(sessionId, monitorId);
      return monitor.state === 'stopped' ? monitor : null;
    },
    { what: `monitor ${monitorId} to end`, timeoutMs },
  );
}

function askedWith(text: string): RecordedRequest | undefined {
  return h.model.conversationRequests().find((request) => lastUserText(request).includes(text));
}

async function monitorInputs(sessionId: string) {
  return (await readTyped(h.runtime.store, sessionId, { limit: 100_000 })).flatMap((record) =>
    record.type === 'input.accepted' && record.data.source?.kind === 'monitor' ? [record] : [],
  );
}

describe('monitors', () => {
  it("lines reach the model's next request labelled with their source; the exit code is journaled; the CLI reads them", async () => {
    const sessionId = await settledSession('watch the build');
    const monitor = await h.runtime.monitors.start(sessionId, {
      command: "printf 'build step one\\nbuild step two\\n'; sleep 0.5; echo build done; exit 3",
    });
    expect(monitor).toMatchObject({
      state: 'running',
      cwd: h.cwd,
      permissionMode: 'default',
      persistent: false,
    });
    expect(monitor.deadlineAt).toBeGreaterThan(Date.now() + 9 * 60_000);
    const stopped = await ended(sessionId, monitor.id);
    expect(stopped).toMatchObject({ reason: 'exited', exitCode: 3, lines: 3 });
    await waitFor(() => askedWith('build done'), { what: 'the model to get the last line' });
    const first = askedWith('build step one')!;
    expect(lastUserText(first)).toContain(`[monitor ${monitor.id} output (command: printf`);
    expect(lastUserText(first)).toContain('launched under permission mode default');
    expect(lastUserText(first)).toContain('not a person');
    // Lines that arrived together are one observation, and one input.
    const journal = await readJournal(h.runtime, sessionId);
    const observations = journal.filter(isEvent('monitor.observation'));
    expect(observations[0] && dataOf(observations[0]).lines).toEqual(['build step one', 'build step two']);
    const inputs = await waitFor(async () => {
      const found = await monitorInputs(sessionId);
      return found.length > 0 ? found : null;
    });
    expect(inputs[0]!.data.source).toMatchObject({
      kind: 'monitor',
      monitorId: monitor.id,
      permissionMode: 'default',
    });
    await waitFor(
      async () =>
        (await h.runtime.listInputs(sessionId))
          .filter((input) => input.messageId.startsWith(`monitor:${monitor.id}:`))
          .every((input) => input.state === 'delivered'),
      { what: 'the monitor inputs delivered' },
    );
    // How it ended reaches the agent too.
    await waitFor(() => askedWith(`[monitor ${monitor.id} ended: exited, exit code 3]`), {
      what: 'the model to hear how the monitor ended',
    });
    // Each input journaled once and delivered at most once (DESIGN guarantees 1-4).
    await checkGuarantees(h.runtime, sessionId);

    const listed = await runCli(['monitor', 'list', sessionId, '--json', '--data-dir', h.dataDir], h.env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: monitor.id, state: 'stopped', exitCode: 3 }]);
    const events = await runCli(['monitor', 'events', sessionId, monitor.id, '--data-dir', h.dataDir], h.env);
    expect(events.stdout).toContain(`monitor ${monitor.id}: build step two`);
    expect(events.stdout).toContain(`monitor ${monitor.id} stopped: exited, exit code 3`);
    const missing = await runCli(['monitor', 'show', sessionId, 'mon_nope', '--data-dir', h.dataDir], h.env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('not_found');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('output past 1 MiB stops the monitor with output_limit; the agent gets the end of it', async () => {
    const sessionId = await settledSession('watch a flood');
    const monitor = await h.runtime.monitors.start(sessionId, { command: 'yes flood-line-0123456789' });
    const stopped = await ended(sessionId, monitor.id);
    expect(stopped).toMatchObject({ reason: 'output_limit', outputBytes: 1024 * 1024 });
    expect(isRunning(monitor.commandPid)).toBe(false);
    const journal = await readJournal(h.runtime, sessionId);
    const lines = journal
      .filter(isEvent('monitor.observation'))
      .flatMap((event) => dataOf(event).lines as string[]);
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeGreaterThan(1024 * 1024 - 100);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024 + 1);
    await waitFor(() => askedWith(`[monitor ${monitor.id} ended: output_limit`), {
      what: 'the model to hear of the limit',
    });
    const asked = lastUserText(askedWith(`[monitor ${monitor.id} ended: output_limit`)!);
    expect(asked.length).toBeLessThan(40 * 1024);
    expect(asked).toMatch(/earlier lines left out/);
    // The last output comes with the end, in one input.
    expect(asked).toMatch(new RegExp(`\nflood-[^\\n]*\\n\\[monitor ${monitor.id} ended: output_limit`));
  });

  it('a deadline ends a command that never stops, with its whole process group', async () => {
    const sessionId = await settledSession('watch something slow');
    const monitor = await h.runtime.monitors.start(sessionId, {
      command: 'sleep 300 & echo started; wait',
      deadlineMs: 1500,
    });
    await expect(
      h.runtime.monitors.start(sessionId, { command: 'true', persistent: true, deadlineMs: 10 }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(h.runtime.monitors.start(sessionId, { command: '  ' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    const stopped = await ended(sessionId, monitor.id);
    expect(stopped).toMatchObject({ reason: 'deadline', exitCode: null, signal: 'SIGTERM' });
    expect(stopped.stoppedAt! - stopped.startedAt).toBeGreaterThanOrEqual(1400);
    await waitFor(() => !isRunning(monitor.commandPid) && !isRunning(monitor.pid), {
      what: 'the command and runner gone',
    });
  });

  it('persistent: collects output while no worker runs and delivers it on resume; a plain one ends with the stop', async () => {
    const sessionId = await settledSession('keep an eye on the log');
    const persistent = await h.runtime.monitors.start(sessionId, {
      command: 'while true; do echo tick-$(date +%s%N); sleep 0.4; done',
      persistent: true,
    });
    const plain = await h.runtime.monitors.start(sessionId, { command: 'sleep 300' });
    expect(persistent.deadlineAt).toBeNull();
    const execution = await h.runtime.stop(sessionId);
    expect(execution).not.toBeNull();
    await waitFor(async () => (await h.runtime.liveExecution(sessionId)) === null, {
      what: 'the worker to stop',
    });
    expect(await ended(sessionId, plain.id)).toMatchObject({ reason: 'session_stopped' });
    const stoppedAt = await h.runtime.lastCursor(sessionId);
    // Output made while no worker runs is journaled and waits.
    await waitFor(
      async () =>
        (await readJournal(h.runtime, sessionId)).filter(
          (event) => event.cursor > stoppedAt && event.type === 'monitor.observation',
        ).length >= 3,
      { what: 'observations with no worker' },
    );
    const waiting = await h.runtime.monitors.get(sessionId, persistent.id);
    expect(waiting.state).toBe('running');
    expect(waiting.pendingLines).toBeGreaterThanOrEqual(3);
    const before = (await monitorInputs(sessionId)).length;
    expect(await h.runtime.liveExecution(sessionId)).toBeNull();
    const pendingLine = (await readJournal(h.runtime, sessionId))
      .filter((event) => event.cursor > stoppedAt && event.type === 'monitor.observation')
      .flatMap((event) => dataOf(event).lines as string[])[0]!;

    await h.runtime.resume(sessionId);
    await waitFor(() => askedWith(pendingLine), { what: 'the waiting output delivered after resume' });
    expect((await monitorInputs(sessionId)).length).toBeGreaterThan(before);
    const stopped = await h.runtime.monitors.stop(sessionId, persistent.id);
    expect(stopped).toMatchObject({ state: 'stopped', reason: 'stopped' });
    expect(isRunning(persistent.commandPid)).toBe(false);
  });

  it('a running monitor holds off the idle timeout; after it ends the worker idles out', async () => {
    // Workers this runtime starts get its environment: a short idle timeout.
    const quick = await createRuntime({
      dataDir: h.dataDir,
      env: { ...h.env, AGENTD_IDLE_TIMEOUT_MS: '1500' },
    });
    // The monitor runs before the worker starts, so the first idle period already has it.
    const { session } = await quick.createSession({ cwd: h.cwd });
    const sessionId = session.id;
    const monitor = await quick.monitors.start(sessionId, { command: 'sleep 8; echo the late line' });
    await quick.send(sessionId, { text: 'wait for it' });
    await readUntil(quick, sessionId, isEvent('work.settled'));
    const [execution] = await quick.listExecutions(sessionId);
    // Well past the idle timeout, the worker is still there, and gets the line.
    await waitFor(() => askedWith('the late line'), { what: 'the late line delivered', timeoutMs: 40_000 });
    const journal = await readJournal(quick, sessionId);
    expect(journal.filter(isEvent('execution.stopped'))).toEqual([]);
    expect((await quick.listExecutions(sessionId)).map((each) => each.id)).toEqual([execution!.id]);
    expect((await ended(sessionId, monitor.id)).reason).toBe('exited');
    const stopped = await readUntil(quick, sessionId, isEvent('execution.stopped'));
    expect(dataOf(stopped.at(-1)!).reason).toBe('idle timeout');
    await quick.close();
  });

  it('--wake starts the worker of an idle session; without it the output waits for the next turn', async () => {
    const { session: asleep } = await h.runtime.createSession({ cwd: h.cwd });
    const waiting = await h.runtime.monitors.start(asleep.id, { command: 'echo nobody wakes me' });
    await ended(asleep.id, waiting.id);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await h.runtime.listExecutions(asleep.id)).toEqual([]);
    expect(askedWith('nobody wakes me')).toBeUndefined();
    await h.runtime.send(asleep.id, { text: 'anything new?' });
    await waitFor(() => askedWith('nobody wakes me'), { what: 'the output delivered with the next turn' });

    const { session: woken } = await h.runtime.createSession({ cwd: h.cwd });
    const started = await runCli(
      [
        'monitor',
        'start',
        woken.id,
        '--wake',
        '--deadline',
        '20s',
        '--data-dir',
        h.dataDir,
        '--',
        'sleep 0.5; echo',
        'wake up now',
      ],
      h.env,
    );
    expect(started.code, started.stderr).toBe(0);
    const monitorId = started.stdout.trim();
    expect(monitorId).toMatch(/^mon_/);
    await waitFor(() => askedWith('wake up now'), { what: 'the woken worker to deliver the line' });
    expect((await h.runtime.listExecutions(woken.id)).length).toBe(1);
    const request = askedWith('wake up now')!;
    expect(lastUserText(request)).toContain(`[monitor ${monitorId} output`);
  });

  it('a server killed with monitors running: a new one finds them by PID and start time, they keep going and stop', async () => {
    const sessionId = await settledSession('watch across restarts');
    const serve = () => {
      const child = h.track(spawnCli(['serve', '--port', '0', '--data-dir', h.dataDir], h.env));
      const { lines } = linesOf(child);
      return { child, lines };
    };
    const urlOf = async (lines: string[]) =>
      (await waitFor(() => lines.find((line) => line.includes('listening on')), { what: 'the server' }))
        .split('listening on ')[1]!
        .trim();
    const first = serve();
    const url = await urlOf(first.lines);
    const response = await fetch(`${url}/v1/sessions/${sessionId}/monitors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'while true; do echo beat; sleep 0.3; done', persistent: true }),
    });
    expect(response.status).toBe(201);
    const { monitor } = (await response.json()) as { monitor: MonitorView };
    const bad = await fetch(`${url}/v1/sessions/${sessionId}/monitors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'true', deadlineMs: -1 }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_input');

    killGroup(first.child.pid);
    await waitFor(() => !isRunning(first.child.pid!), { what: 'the server to die' });
    expect(isRunning(monitor.pid)).toBe(true);
    const cursor = await h.runtime.lastCursor(sessionId);

    const second = serve();
    const secondUrl = await urlOf(second.lines);
    const found = (await (
      await fetch(`${secondUrl}/v1/sessions/${sessionId}/monitors/${monitor.id}`)
    ).json()) as {
      monitor: MonitorView;
    };
    expect(found.monitor).toMatchObject({
      state: 'running',
      pid: monitor.pid,
      processStartTime: monitor.processStartTime,
    });
    await waitFor(
      async () =>
        (await readJournal(h.runtime, sessionId)).some(
          (event) => event.cursor > cursor && event.type === 'monitor.observation',
        ),
      { what: 'output after the restart' },
    );
    const stopped = await fetch(`${secondUrl}/v1/sessions/${sessionId}/monitors/${monitor.id}/stop`, {
      method: 'POST',
    });
    expect(((await stopped.json()) as { monitor: MonitorView }).monitor).toMatchObject({
      state: 'stopped',
      reason: 'stopped',
    });
    expect(isRunning(monitor.commandPid)).toBe(false);
    const spec = (await (await fetch(`${secondUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths)).toContain('/v1/sessions/{id}/monitors/{monitor}/stop');
  });

  it('a runner killed without a word: the monitor is found lost and its command group ended', async () => {
    const sessionId = await settledSession('watch a runner die');
    const monitor = await h.runtime.monitors.start(sessionId, { command: 'sleep 300' });
    process.kill(monitor.pid, 'SIGKILL');
    await waitFor(() => !isRunning(monitor.pid), { what: 'the runner to die' });
    const lost = await waitFor(
      async () => {
        const view = await h.runtime.monitors.get(sessionId, monitor.id);
        return view.state === 'stopped' ? view : null;
      },
      { what: 'the monitor marked lost' },
    );
    expect(lost.reason).toBe('lost');
    await waitFor(() => !isRunning(monitor.commandPid), { what: 'the orphaned command ended' });
  });
});
