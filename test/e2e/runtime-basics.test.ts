import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, createRuntime, StoreError } from '../../src/index.js';
import {
  backgroundShellScript,
  checkGuarantees,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isolatedEnv,
  isRunning,
  killGroup,
  readJournal,
  readUntil,
  runCli,
  startParent,
  timesSent,
  waitFor,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe.each(backends)('runtime: workers outlive their parent (%s)', (backend) => {
  it('parent killed mid-stream: the worker goes on, a new runtime reattaches and reads every event', async () => {
    const reply =
      'A slow reply that keeps streaming, chunk after chunk, while the process that asked for it dies.';
    harness = await createHarness({ backend, script: [{ text: reply, chunkDelayMs: 120, chunkSize: 4 }] });
    const h = harness;
    const parent = await startParent(h, 'tell me slowly');
    // The worker is streaming: the model has the request and the delivery is journaled.
    await waitFor(() => h.model.conversationRequests().length === 1, { what: 'the model request' });
    await waitFor(
      async () => (await readJournal(h.runtime, parent.sessionId)).some(isEvent('input.delivered')),
      { what: 'the delivery' },
    );
    killGroup(parent.child.pid);
    await waitFor(() => parent.child.exitCode !== null || parent.child.signalCode !== null, {
      what: 'the parent to die',
    });
    const atDeath = await readJournal(h.runtime, parent.sessionId);
    expect(atDeath.some(isEvent('agent.turn.completed')), 'the turn was still streaming').toBe(false);
    expect(isRunning(parent.pid), 'the worker survives its parent').toBe(true);

    const runtime = await h.openRuntime();
    const details = await runtime.getSession(parent.sessionId);
    expect(details.live?.id).toBe(parent.executionId);
    expect(details.live?.pid).toBe(parent.pid);

    const events = await readUntil(runtime, parent.sessionId, isEvent('work.settled', parent.executionId));
    const message = events.find(isEvent('agent.message'));
    expect(message && dataOf(message).text).toBe(reply);
    expect(events.filter(isEvent('agent.turn.completed'))).toHaveLength(1);
    const journal = await checkGuarantees(runtime, parent.sessionId, { seen: events, model: h.model });
    // The stream read through a new process is the journal.
    expect(events).toEqual(journal.slice(0, events.length));
    expect(journal.filter(isEvent('execution.failed'))).toHaveLength(0);
    expect((await runtime.getSession(parent.sessionId)).live?.id).toBe(parent.executionId);
  });
});

describe.each(backends)('runtime: idempotent sends across restarts (%s)', (backend) => {
  it('send: the same message id after everything died is the same input, delivered once; other text conflicts', async () => {
    harness = await createHarness({
      backend,
      script: [{ text: 'first reply' }, { text: 'second reply' }, { text: 'third reply' }],
    });
    const h = harness;
    const first = await h.runtime.createSession({
      backend,
      prompt: 'prompt one',
      cwd: h.cwd,
      messageId: 'm-1',
    });
    const sessionId = first.session.id;
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    const cursor = (await readJournal(h.runtime, sessionId)).length;
    const sent = await h.runtime.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
    await readUntil(h.runtime, sessionId, isEvent('work.settled'), { after: cursor });

    // Kill everything: the worker with its agent process, and this runtime.
    const [execution] = await h.runtime.listExecutions(sessionId);
    killGroup(execution?.pid ?? undefined);
    await waitFor(() => !isRunning(execution!.pid!), { what: 'the worker to die' });
    await h.runtime.close();

    const second = await h.openRuntime();
    const again = await second.send(sessionId, { text: 'prompt two', messageId: 'm-2' });
    expect(again.id).toBe(sent.id);
    expect(again.state).toBe('delivered');
    expect((await second.getSession(sessionId)).live, 'a delivered input starts no worker').toBeNull();
    await expect(second.send(sessionId, { text: 'other text', messageId: 'm-2' })).rejects.toSatisfy(
      (error) => error instanceof ConflictError && error.code === 'conflict',
    );

    // An input whose worker died before taking it is still `accepted`: resending it delivers it once.
    const third = await second.send(sessionId, { text: 'prompt three', messageId: 'm-3' });
    const starting = (await second.listExecutions(sessionId)).find((each) => each.state === 'starting');
    killGroup(starting?.pid ?? undefined);
    await waitFor(() => !isRunning(starting!.pid!), { what: 'the new worker to die' });
    await second.close();

    const thirdRuntime = await h.openRuntime();
    expect((await thirdRuntime.listInputs(sessionId)).find((input) => input.id === third.id)?.state).toBe(
      'accepted',
    );
    const resent = await thirdRuntime.send(sessionId, { text: 'prompt three', messageId: 'm-3' });
    expect(resent.id).toBe(third.id);
    const before = (await readJournal(thirdRuntime, sessionId)).length;
    await readUntil(thirdRuntime, sessionId, isEvent('work.settled'), { after: before });

    expect(timesSent(h.model, 'prompt one')).toBe(1);
    expect(timesSent(h.model, 'prompt two')).toBe(1);
    expect(timesSent(h.model, 'prompt three')).toBe(1);
    const inputs = await thirdRuntime.listInputs(sessionId);
    expect(inputs.map((input) => [input.messageId, input.state])).toEqual([
      ['m-1', 'delivered'],
      ['m-2', 'delivered'],
      ['m-3', 'delivered'],
    ]);
    await checkGuarantees(thirdRuntime, sessionId, { acknowledged: ['m-1', 'm-2', 'm-3'], model: h.model });
  });
});

describe.each(backends)('runtime: idle timeout (%s)', (backend) => {
  it('a worker stops by itself after a turn once it has been idle for AGENTD_IDLE_TIMEOUT_MS', async () => {
    harness = await createHarness({
      backend,
      script: [{ text: 'done' }],
      env: { AGENTD_IDLE_TIMEOUT_MS: '1500' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ backend, prompt: 'hello', cwd: h.cwd });
    const events = await readUntil(h.runtime, session.id, isEvent('execution.stopped'));
    const settled = events.findIndex(isEvent('work.settled'));
    const stopped = events.at(-1)!;
    expect(settled).toBeGreaterThan(-1);
    expect(dataOf(stopped).reason).toBe('idle timeout');
    const [execution] = await h.runtime.listExecutions(session.id);
    expect(execution?.state).toBe('stopped');
    await waitFor(() => !isRunning(execution!.pid!), { what: 'the idle worker to exit' });
    expect((await h.runtime.store.getLease(session.id))?.owner ?? null).toBeNull();
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });
});

// Claude only: the approval is scripted as claude's tool call. Codex sessions ask too since 0141
// (codex.test.ts covers their approvals through the runtime); this case is not parameterized yet.
describe('runtime: idle timeout with work pending, claude only', () => {
  it('a worker waiting for an approval does not time out; it does once the turn is over', async () => {
    harness = await createHarness({
      script: [
        {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: 'touch idle-approved.txt && echo touched', description: 'make a file' },
            },
          ],
        },
        { text: 'made it' },
      ],
      // A short lease, renewed every half second: its renewals show the worker still at work.
      env: { AGENTD_IDLE_TIMEOUT_MS: '1500', AGENTD_LEASE_TTL_MS: '1500' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'make a file', cwd: h.cwd });
    const requested = (await readUntil(h.runtime, session.id, isEvent('interaction.requested'))).at(-1)!;
    const interaction = dataOf(requested).interaction as { id: string };
    // Three idle timeouts pass while the approval is pending: the worker renews its lease after
    // them, and it never stopped in between.
    const outcome = await waitFor(
      async () => {
        if ((await readJournal(h.runtime, session.id)).some(isEvent('execution.stopped'))) return 'stopped';
        const lease = await h.runtime.store.getLease(session.id);
        const renewedAt = lease ? lease.expiresAt - 1500 : 0;
        return renewedAt > requested.createdAt + 3 * 1500 ? 'renewed' : undefined;
      },
      { what: 'a lease renewal three idle timeouts after the approval was requested' },
    );
    expect(outcome).toBe('renewed');
    const details = await h.runtime.getSession(session.id);
    expect(details.live?.state).toBe('running');
    expect((await readJournal(h.runtime, session.id)).some(isEvent('execution.stopped'))).toBe(false);
    await checkGuarantees(h.runtime, session.id, { pending: [interaction.id] });

    await h.runtime.answer(interaction.id, { decision: 'approve' });
    const events = await readUntil(h.runtime, session.id, isEvent('execution.stopped'));
    expect(dataOf(events.at(-1)!).reason).toBe('idle timeout');
    const types = events.map((event) => event.type);
    expect(types.indexOf('agent.tool_result')).toBeLessThan(types.indexOf('work.settled'));
    expect(existsSync(join(h.cwd, 'idle-approved.txt'))).toBe(true);
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });
});

// Claude only: background tasks are claude's (Bash `run_in_background`).
describe('runtime: background tasks', () => {
  it('a background task keeps the worker up past the idle timeout; claude reporting its end is journaled between turns', async () => {
    harness = await createHarness({
      script: backgroundShellScript('sleep 4'),
      env: { AGENTD_IDLE_TIMEOUT_MS: '1000' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'start a background job',
      cwd: h.cwd,
      config: { allowedTools: ['Bash'] },
    });
    const events = await readUntil(h.runtime, session.id, isEvent('execution.stopped'), {
      timeoutMs: 60_000,
    });
    const changes = events.filter(
      (event) => event.type === 'claude.message' && dataOf(event).subtype === 'background_tasks_changed',
    );
    const tasksOf = (event: (typeof events)[number]) =>
      ((dataOf(event).raw as { tasks?: unknown[] } | undefined)?.tasks ?? []).length;
    // claude announced the task while the turn ran, and its end after the turn had settled.
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(tasksOf(changes[0]!)).toBe(1);
    const ended = changes.find((event) => tasksOf(event) === 0)!;
    const firstSettled = events.find(isEvent('work.settled'))!;
    expect(ended.cursor).toBeGreaterThan(firstSettled.cursor);
    // The idle timeout (1 s) did not stop the worker while the 4 s task ran.
    const stopped = events.at(-1)!;
    expect(dataOf(stopped).reason).toBe('idle timeout');
    expect(stopped.cursor).toBeGreaterThan(ended.cursor);
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });
});

describe('runtime: a corrupt or foreign data file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dataDirWith = (write: (file: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-e2e-bad-'));
    dirs.push(dir);
    mkdirSync(dir, { recursive: true });
    write(join(dir, 'agentd.db'));
    return { dir, file: join(dir, 'agentd.db') };
  };

  it('garbage bytes: createRuntime rejects with store_corrupt, the CLI prints one clear line, the file is untouched', async () => {
    const { dir, file } = dataDirWith((path) => writeFileSync(path, randomBytes(8192)));
    const bytes = readFileSync(file);
    await expect(createRuntime({ dataDir: dir })).rejects.toSatisfy(
      (error) => error instanceof StoreError && error.code === 'store_corrupt',
    );
    const result = await runCli(['sessions', '--data-dir', dir], isolatedEnv(dir));
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('not an agentd data file');
    expect(lines[0]).toContain('store_corrupt');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a SQLite file with a valid header and garbage after it is store_corrupt too', async () => {
    const { dir, file } = dataDirWith((path) => {
      const page = Buffer.alloc(8192);
      randomBytes(8192).copy(page);
      Buffer.from('SQLite format 3\u0000', 'latin1').copy(page, 0);
      writeFileSync(path, page);
    });
    await expect(createRuntime({ dataDir: dir })).rejects.toSatisfy(
      (error) => error instanceof StoreError && error.code === 'store_corrupt',
    );
    const result = await runCli(['sessions', '--data-dir', dir], isolatedEnv(dir));
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(file)).toBe(true);
  });

  it("another program's SQLite file: store_foreign, and the file is left exactly as it was", async () => {
    const { dir, file } = dataDirWith((path) => {
      const db = new Database(path);
      db.exec(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');",
      );
      db.close();
    });
    const bytes = readFileSync(file);
    await expect(createRuntime({ dataDir: dir })).rejects.toSatisfy(
      (error) => error instanceof StoreError && error.code === 'store_foreign',
    );
    const result = await runCli(['sessions', '--data-dir', dir, '--json'], isolatedEnv(dir));
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('another program');
    expect(lines[0]).toContain('store_foreign');
    expect(result.stdout).toBe('');
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });
});
