/**
 * The CLI as a user types it: `node bin/agentd.js …` processes against a data directory, the
 * workers they start running the real SDK and `claude` against the scripted model.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord, InteractionRecord, SessionDetails } from '../../src/index.js';
import { claudeExecutablePath } from '../../src/runtime/claude-executable.js';
import { toolResults } from '../../src/testing/index.js';
import {
  askWhichTurn,
  type CliResult,
  createHarness,
  dataOf,
  expectGapless,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  linesOf,
  readJournal,
  readUntil,
  repoRoot,
  runCli,
  spawnCli,
  timesSent,
  waitFor,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `agentd ARGS… --data-dir DIR`, expecting success. */
async function agentd(h: Harness, ...args: string[]): Promise<string> {
  const result = await runCli([...args, '--data-dir', h.dataDir], h.env);
  expect(result, `agentd ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
}

/** `agentd ARGS… --data-dir DIR`, whatever its outcome. */
function agentdResult(h: Harness, ...args: string[]): Promise<CliResult> {
  return runCli([...args, '--data-dir', h.dataDir], h.env);
}

/** A one-line error on stderr with the stable code in it, no stack trace. */
function expectClearError(result: CliResult, code: number, ...parts: string[]) {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^agentd: /);
  for (const part of parts) expect(lines[0]).toContain(part);
}

const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventRecord);

describe('cli: sessions, messages and events', () => {
  it('start, send (idempotent, conflict), events --follow/--json, show, stop, attach', async () => {
    harness = await createHarness({ script: [{ text: 'hello from the model' }, { text: 'second reply' }] });
    const h = harness;
    const startOut = await agentd(h, 'start', 'first prompt', '--cwd', h.cwd);
    const sessionId = startOut.trim();
    expect(sessionId).toMatch(uuid);
    expect(startOut).toBe(`${sessionId}\n`);

    const follow = h.track(
      spawnCli(['events', sessionId, '--follow', '--json', '--data-dir', h.dataDir], h.env),
    );
    const followed = linesOf(follow);
    const settledCount = () =>
      followed.lines.filter((line) => (JSON.parse(line) as EventRecord).type === 'work.settled').length;
    await waitFor(() => settledCount() === 1, { what: 'the first turn in events --follow' });

    // attach while the worker is live: a clear error.
    expectClearError(await agentdResult(h, 'attach', sessionId, '--print'), 4, 'live worker', 'agentd stop');

    const sent = await agentd(h, 'send', sessionId, 'second prompt', '--message-id', 'm-2');
    expect(sent).toMatch(/^m-2 (accepted|dispatching|delivered)\n$/);
    await waitFor(() => settledCount() === 2, { what: 'the second turn in events --follow' });
    // The same id and text again: the same input, in the state it has reached; nothing new.
    expect(await agentd(h, 'send', sessionId, 'second prompt', '--message-id', 'm-2')).toBe(
      'm-2 delivered\n',
    );
    const again = JSON.parse(
      await agentd(h, 'send', sessionId, 'second prompt', '--message-id', 'm-2', '--json'),
    ) as { messageId: string; state: string };
    expect([again.messageId, again.state]).toEqual(['m-2', 'delivered']);
    expectClearError(
      await agentdResult(h, 'send', sessionId, 'other text', '--message-id', 'm-2'),
      4,
      'm-2',
      '(conflict)',
    );
    expect(timesSent(h.model, 'second prompt')).toBe(1);

    // --follow streams until it is interrupted.
    expect(follow.exitCode).toBeNull();
    killGroup(follow.pid, 'SIGINT');
    expect(await followed.closed).toBe(0);
    const streamed = followed.lines.map((line) => JSON.parse(line) as EventRecord);
    expectGapless(streamed);

    const all = parseLines(await agentd(h, 'events', sessionId, '--json'));
    expectGapless(all);
    expect(all).toEqual(await readJournal(h.runtime, sessionId));
    expect(streamed).toEqual(all.slice(0, streamed.length));
    const tail = parseLines(await agentd(h, 'events', sessionId, '--after', '3', '--json'));
    expect(tail.map((event) => event.cursor)).toEqual(all.slice(3).map((event) => event.cursor));
    const human = await agentd(h, 'events', sessionId);
    expect(human).toContain('[1] you: first prompt');
    expect(human).toContain('hello from the model');

    const shown = JSON.parse(await agentd(h, 'show', sessionId, '--json')) as SessionDetails;
    expect(shown.inputs.map((input) => [input.text, input.state])).toEqual([
      ['first prompt', 'delivered'],
      ['second prompt', 'delivered'],
    ]);
    expect(shown.inputs[1]?.messageId).toBe('m-2');
    expect(shown.live?.state).toBe('idle');
    expect(shown.lastCursor).toBe(all.length);
    expect(await agentd(h, 'show', sessionId)).toMatch(
      /inputs\n {2}\S+ delivered "first prompt"\n {2}m-2 delivered/,
    );

    const sessions = await agentd(h, 'sessions');
    expect(sessions).toContain(sessionId);
    expect(
      (JSON.parse(await agentd(h, 'sessions', '--json')) as Array<{ id: string }>).map((s) => s.id),
    ).toEqual([sessionId]);

    expect(await agentd(h, 'stop', sessionId)).toBe(`stopping ${shown.live?.id}\n`);
    await readUntil(h.runtime, sessionId, isEvent('execution.stopped'));
    await waitFor(() => !isRunning(shown.live!.pid!), { what: 'the worker to exit' });
    expect(await agentd(h, 'stop', sessionId)).toBe('no live worker\n');
    const native = (await h.runtime.getSession(sessionId)).session.nativeSessionId;
    expect(native).toMatch(uuid);
    expect(await agentd(h, 'attach', sessionId, '--print')).toBe(
      `cd ${JSON.stringify(h.cwd)} && ${claudeExecutablePath()} --resume ${native}\n`,
    );
    expectClearError(await agentdResult(h, 'show', 'no-such-session'), 4, 'not_found');
  });
});

describe('cli: approvals', () => {
  it('approvals lists what waits; deny with a reason, approve, answer; a second answer conflicts', async () => {
    harness = await createHarness({
      script: [
        {
          content: [
            { type: 'tool_use', name: 'Bash', input: { command: 'touch a.txt', description: 'make a' } },
          ],
        },
        { text: 'no a then' },
        {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: 'touch b.txt && echo b-made', description: 'make b' },
            },
          ],
        },
        askWhichTurn,
        { text: 'done with both' },
      ],
    });
    const h = harness;
    const sessionId = (await agentd(h, 'start', 'make a', '--cwd', h.cwd)).trim();
    // Wait through the library (cheap), then read what the CLI shows.
    const pendingOne = async () => {
      const list = await h.runtime.interactions({ state: 'pending' });
      if (list.length !== 1) return null;
      const shown = JSON.parse(await agentd(h, 'approvals', '--json')) as InteractionRecord[];
      expect(shown.map((each) => each.id)).toEqual([list[0]!.id]);
      return shown[0];
    };
    const first = await waitFor(pendingOne, { what: 'the first approval' });
    expect([first.toolName, first.sessionId]).toEqual(['Bash', sessionId]);
    const listed = await agentd(h, 'approvals');
    expect(listed).toContain(`${first.id} pending approval Bash session ${sessionId}`);
    expect(listed).toContain('touch a.txt');

    expect(await agentd(h, 'deny', first.id, '--reason', 'no a today')).toBe(`answered ${first.id}\n`);
    expectClearError(await agentdResult(h, 'approve', first.id), 4, 'already answered', '(conflict)');
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    expect(toolResults(h.model.conversationRequests()[1]!)[0]).toMatchObject({
      content: expect.stringContaining('no a today'),
      isError: true,
    });

    await agentd(h, 'send', sessionId, 'make b', '--message-id', 'm-b');
    const second = await waitFor(pendingOne, { what: 'the second approval' });
    expect(second.id).not.toBe(first.id);
    expect(await agentd(h, 'approve', second.id)).toBe(`answered ${second.id}\n`);
    const question = await waitFor(
      async () => {
        const next = await pendingOne();
        return next?.kind === 'question' ? next : null;
      },
      { what: 'the question' },
    );
    const missing = await agentdResult(h, 'answer', question.id);
    expect([missing.code, missing.stderr]).toEqual([2, "error: missing required argument 'answers'\n"]);
    expect(await agentd(h, 'answer', question.id, 'B')).toBe(`answered ${question.id}\n`);
    const before = (await readJournal(h.runtime, sessionId)).findLast(isEvent('input.accepted'))!.cursor;
    await readUntil(h.runtime, sessionId, isEvent('work.settled'), { after: before });

    expect(existsSync(join(h.cwd, 'a.txt'))).toBe(false);
    expect(existsSync(join(h.cwd, 'b.txt'))).toBe(true);
    const results = toolResults(h.model.conversationRequests().at(-1)!);
    expect(results.find((result) => result.toolUseId === second.toolUseId)?.content).toContain('b-made');
    expect(results.find((result) => result.toolUseId === question.toolUseId)?.content).toContain(
      '"Which?"="B"',
    );
    expect(await agentd(h, 'approvals')).toBe('nothing pending\n');
    expect((JSON.parse(await agentd(h, 'approvals', '--all', '--json')) as unknown[]).length).toBe(3);
  });

  it('start --allowed-tools Bash runs the tool without asking', async () => {
    harness = await createHarness({
      script: [
        {
          content: [
            { type: 'tool_use', name: 'Bash', input: { command: 'echo allowed-run', description: 'echo' } },
          ],
        },
        { text: 'ran it' },
      ],
    });
    const h = harness;
    const sessionId = (
      await agentd(h, 'start', 'run echo', '--cwd', h.cwd, '--allowed-tools', 'Bash')
    ).trim();
    const events = await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    expect(events.some(isEvent('interaction.requested'))).toBe(false);
    expect(toolResults(h.model.conversationRequests()[1]!)[0]).toMatchObject({
      content: expect.stringContaining('allowed-run'),
      isError: false,
    });
    expect(await agentd(h, 'approvals', '--all')).toBe('nothing pending\n');
  });
});

/** The harness's environment without any model credentials. */
function withoutCredentials(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^(ANTHROPIC_|CLAUDE_CODE_OAUTH|CLAUDE_CODE_USE_)/.test(name)),
  );
}

describe('cli: credentials, cwd and the offline demo model', () => {
  it('start, send and resume without credentials exit 3 with one message, and journal nothing', async () => {
    harness = await createHarness({ script: [{ text: 'first answer' }] });
    const h = harness;
    const bare = withoutCredentials(h.env);
    const refused = await runCli(['start', 'hi', '--cwd', h.cwd, '--data-dir', h.dataDir], bare);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('no model credentials found');
    expect(refused.stderr).toContain('(credentials_missing)');
    expect(await h.runtime.listSessions()).toEqual([]);

    // A session made with credentials, then used from a shell without them.
    const sessionId = (await agentd(h, 'start', 'hi', '--cwd', h.cwd)).trim();
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    await agentd(h, 'stop', sessionId);
    await readUntil(h.runtime, sessionId, isEvent('execution.stopped'));
    await waitFor(async () => (await h.runtime.liveExecution(sessionId)) === null, { what: 'the stop' });
    const before = await readJournal(h.runtime, sessionId);
    for (const args of [
      ['send', sessionId, 'again'],
      ['resume', sessionId],
    ]) {
      const result = await runCli([...args, '--data-dir', h.dataDir], bare);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toContain('no model credentials found');
      expect(result.stderr).toContain('(credentials_missing)');
    }
    expect(await readJournal(h.runtime, sessionId)).toEqual(before);
    expect((await h.runtime.getSession(sessionId)).inputs).toHaveLength(1);
  });

  it('start --cwd that is not an existing directory exits 2 (invalid_input) and creates nothing', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    for (const cwd of [join(h.cwd, 'missing'), '../../etc/passwd']) {
      expectClearError(
        await agentdResult(h, 'start', 'hi', '--cwd', cwd),
        2,
        'not an existing directory',
        '(invalid_input)',
      );
    }
    expect(await h.runtime.listSessions()).toEqual([]);
    expect(h.model.requests).toHaveLength(0);
  });

  it('an offline session needs no credentials: start, send, approve act in its own cwd only', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    const bare = withoutCredentials(h.env);
    const cli = async (...args: string[]) => {
      const result = await runCli([...args, '--data-dir', h.dataDir], bare);
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      return result.stdout;
    };
    const sessionId = (await cli('start', '--offline', 'hello demo', '--cwd', h.cwd)).trim();
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    expect(await cli('events', sessionId)).toContain('You said: hello demo');

    await cli('send', sessionId, 'please create a file');
    const approval = await waitFor(
      async () => (await h.runtime.interactions({ sessionId, state: 'pending' }))[0] ?? null,
      { what: 'the demo approval' },
    );
    expect(approval.toolName).toBe('Bash');
    await cli('approve', approval.id);
    await waitFor(() => existsSync(join(h.cwd, 'agentd-demo.txt')), { what: 'the demo file' });
    // In the session's directory, nowhere else: not in the CLI's own cwd.
    expect(existsSync(join(repoRoot, 'agentd-demo.txt'))).toBe(false);
    expect(h.model.requests).toHaveLength(0);
  });

  it('workers of `agentd serve --offline` keep their model: after the server stops, send still gets answers', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    const bare = withoutCredentials(h.env);
    const server = h.track(spawnCli(['serve', '--offline', '--port', '0', '--data-dir', h.dataDir], bare));
    const out = linesOf(server);
    await waitFor(
      () => out.lines.some((line) => line.startsWith('agentd ') && line.includes('listening on')),
      {
        what: 'the server',
      },
    );
    const url = /listening on (\S+)/.exec(out.lines.find((line) => line.includes('listening on'))!)![1]!;
    const created = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'first', cwd: h.cwd }),
    });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string; provider: string } };
    expect(session.provider).toBe('offline');
    await readUntil(h.runtime, session.id, isEvent('work.settled'));

    killGroup(server.pid, 'SIGTERM');
    expect(await out.closed).toBe(0);
    const sent = await runCli(['send', session.id, 'second', '--data-dir', h.dataDir], bare);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    const settled = await readUntil(
      h.runtime,
      session.id,
      (event) => event.type === 'agent.message' && String(dataOf(event).text).includes('You said: second'),
    );
    expect(settled.some(isEvent('execution.failed'))).toBe(false);
  });
});
