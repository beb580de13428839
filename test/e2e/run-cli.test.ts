import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEventType } from '../../src/backends/agent-event.js';
import {
  requestText,
  type Script,
  type ScriptedModel,
  startScriptedModel,
  toolResults,
} from '../../src/testing/index.js';
import { isolatedEnv } from './isolated-env.js';
import { agentEvents, jsonLines, killLeftovers, runCli, spawnCli, waitFor } from './support/cli.js';

// `agentd run` as a user types it: the built binary, the real `claude`, the scripted model.

const eventTypes: Record<AgentEventType, true> = {
  'session.started': true,
  'agent.message': true,
  'agent.thinking': true,
  'agent.tool_call': true,
  'agent.tool_result': true,
  'agent.text_delta': true,
  'agent.retry': true,
  'agent.compacted': true,
  'agent.turn.completed': true,
  'agent.error': true,
  'agent.tool_permission': true,
  'input.delivered': true,
  'claude.message': true,
  'agent.native': true,
};

let isolationRoot: string;
let workDir: string;
let model: ScriptedModel | undefined;

beforeAll(async () => {
  // A private home, CLAUDE_CONFIG_DIR and data dir: claude's sessions and agentd's stay out of ~.
  isolationRoot = await mkdtemp(join(tmpdir(), 'agentd-e2e-home-'));
});

afterAll(async () => {
  await rm(isolationRoot, { recursive: true, force: true });
});

afterEach(async () => {
  killLeftovers();
  await model?.close();
  model = undefined;
  if (workDir) await rm(workDir, { recursive: true, force: true });
  workDir = '';
});

/** None of the developer's environment: no credentials, no settings, a private home. */
function cleanEnv(): Record<string, string | undefined> {
  return isolatedEnv(isolationRoot);
}

async function setup(
  script: Script,
): Promise<{ model: ScriptedModel; env: Record<string, string | undefined> }> {
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'agentd-e2e-run-')));
  model = await startScriptedModel({ script });
  return { model, env: { ...cleanEnv(), ...model.env() } };
}

const sessionLine = /^session ([0-9a-f-]{36}) · (\d+) in \/ (\d+) out tokens · \$(\d+\.\d+) · (\d+) turns?$/m;

// Each test starts claude once or twice (about 1 s idle); on a loaded 2-core machine that can take tens of seconds.
describe('agentd run', { timeout: 120_000 }, () => {
  it('prints the answer and a closing line with the session, tokens and cost', async () => {
    const { env } = await setup([
      { text: 'The capital of France is Paris.', usage: { input_tokens: 120, output_tokens: 34 } },
    ]);
    const result = await runCli(['run', 'What is the capital of France?', '--cwd', workDir], { env });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('The capital of France is Paris.');
    const summary = sessionLine.exec(lines.at(-1) ?? '');
    expect(summary).not.toBeNull();
    const [, , tokensIn, tokensOut, cost, turns] = summary!;
    expect([Number(tokensIn), Number(tokensOut), Number(turns)]).toEqual([120, 34, 1]);
    expect(Number(cost)).toBeGreaterThan(0);
    expect(requestText(model!.conversationRequests()[0]!)).toContain('What is the capital of France?');

    // The id it prints is agentd's: the run is journaled like any session.
    const sessionId = summary![1]!;
    const listed = await runCli(['sessions', '--json'], { env });
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((session) => session.id)).toContain(
      sessionId,
    );
    const shown = await runCli(['show', sessionId, '--json'], { env });
    expect(shown.code).toBe(0);
    const details = JSON.parse(shown.stdout) as {
      inputs: Array<{ text: string; state: string }>;
      executions: Array<{ state: string }>;
      live: unknown;
    };
    expect(details.inputs.map((input) => [input.text, input.state])).toEqual([
      ['What is the capital of France?', 'delivered'],
    ]);
    expect(details.executions.map((execution) => execution.state)).toEqual(['stopped']);
    expect(details.live).toBeNull();
  });

  it('--offline answers with the demo model, with no credentials at all', async () => {
    workDir = await realpath(await mkdtemp(join(tmpdir(), 'agentd-e2e-run-')));
    const result = await runCli(['run', '--offline', 'hello demo', '--cwd', workDir], { env: cleanEnv() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('offline demo model');
    expect(result.stdout).toContain('You said: hello demo');
  });

  it('--json | head: output closed early stops the run quietly, no EPIPE stack trace', async () => {
    const { env } = await setup([{ text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 100 }]);
    const cli = spawnCli(['run', 'talk for a long time', '--cwd', workDir, '--json'], { env });
    await waitFor(() => cli.stdout.includes('\n'));
    // What `head -1` does once it has its line.
    cli.child.stdout.destroy();
    const result = await cli.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('--resume with an id agentd does not know exits 4 (not_found) without starting claude', async () => {
    const { env } = await setup([]);
    const result = await runCli(['run', 'hi', '--resume', 'no-such-session'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^agentd: session no-such-session not found \(not_found\)\n$/);
    expect(model!.requests).toHaveLength(0);
  });

  it('runs an allowed Bash command in the working directory and gives its output to the model', async () => {
    const { env } = await setup((request) =>
      toolResults(request).length > 0
        ? { text: 'The file says hello.' }
        : {
            content: [
              {
                type: 'tool_use',
                id: 'toolu_make_file',
                name: 'Bash',
                input: { command: 'echo hello > made.txt && cat made.txt', description: 'Make a file' },
              },
            ],
          },
    );
    const result = await runCli(['run', 'make a file', '--cwd', workDir, '--allowed-tools', 'Bash'], { env });

    expect(result.code).toBe(0);
    expect(await readFile(join(workDir, 'made.txt'), 'utf8')).toBe('hello\n');
    const [first, second] = model!.conversationRequests();
    expect(first).toBeDefined();
    expect(toolResults(second!)).toEqual([
      { toolUseId: 'toolu_make_file', content: 'hello', isError: false },
    ]);
    expect(result.stdout).toContain('→ Bash: echo hello > made.txt && cat made.txt\n← hello\n');
    expect(result.stdout).toContain('The file says hello.');
  });

  it('a tool removed with --disallowed-tools does not run; the model gets an error result', async () => {
    const { env } = await setup((request) =>
      toolResults(request).length > 0
        ? { text: 'Bash is not available.' }
        : { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch forbidden.txt' } }] },
    );
    const result = await runCli(['run', 'touch a file', '--cwd', workDir, '--disallowed-tools', 'Bash'], {
      env,
    });

    expect(result.code).toBe(0);
    expect(existsSync(join(workDir, 'forbidden.txt'))).toBe(false);
    const [denied] = toolResults(model!.conversationRequests()[1]!);
    expect(denied).toMatchObject({ isError: true });
    expect(denied!.content).toMatch(/No such tool available: Bash/);
    expect(result.stdout).toMatch(/← error: .*Bash/);
  });

  it('a Write that nobody allowed is denied with the way to allow it; the file is not created', async () => {
    const { env } = await setup((request) =>
      toolResults(request).length > 0
        ? { text: 'I could not write it.' }
        : {
            content: [
              {
                type: 'tool_use',
                name: 'Write',
                input: { file_path: join(workDir, 'notes.md'), content: 'x' },
              },
            ],
          },
    );
    const result = await runCli(['run', 'write notes', '--cwd', workDir], { env });

    expect(result.code).toBe(0);
    expect(existsSync(join(workDir, 'notes.md'))).toBe(false);
    const [denied] = toolResults(model!.conversationRequests()[1]!);
    expect(denied).toMatchObject({ isError: true });
    expect(denied!.content).toContain('--allowed-tools Write');
  });

  it('--resume continues the earlier session: the model is shown the earlier turn', async () => {
    const { env } = await setup([
      { text: 'Noted: the code word is PAPAYA-7731.' },
      { text: 'It was PAPAYA-7731.' },
    ]);
    const first = await runCli(['run', 'Remember the code word PAPAYA-7731.', '--cwd', workDir], { env });
    expect(first.code).toBe(0);
    const sessionId = sessionLine.exec(first.stdout)?.[1];
    expect(sessionId).toBeDefined();

    const second = await runCli(
      ['run', 'Which code word did I give you?', '--cwd', workDir, '--resume', sessionId!],
      {
        env,
      },
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('It was PAPAYA-7731.');
    expect(sessionLine.exec(second.stdout)?.[1]).toBe(sessionId);
    const resumed = requestText(model!.conversationRequests()[1]!);
    expect(resumed).toContain('Remember the code word PAPAYA-7731.');
    expect(resumed).toContain('Noted: the code word is PAPAYA-7731.');
    expect(resumed).toContain('Which code word did I give you?');
  });

  it('a 429 is retried and the run succeeds, reporting the retry', async () => {
    const { env } = await setup([
      { error: { status: 429 }, headers: { 'retry-after': '0' } },
      { text: 'made it' },
    ]);
    const result = await runCli(['run', 'hi', '--cwd', workDir, '--json'], { env });

    expect(result.code).toBe(0);
    const events = agentEvents(jsonLines(result.stdout));
    expect(events.filter((event) => event.type === 'agent.retry')).toEqual([
      expect.objectContaining({
        by: 'claude',
        attempt: 1,
        error: expect.objectContaining({ code: 'rate_limit', status: 429, transient: true }),
      }),
    ]);
    expect(events.findLast((event) => event.type === 'agent.turn.completed')).toMatchObject({
      isError: false,
      result: 'made it',
    });
    expect(model!.conversationRequests()).toHaveLength(2);
  });

  it('a 401 stops at once with exit code 3 and error code authentication', async () => {
    const { env } = await setup(() => ({ error: { status: 401, message: 'invalid x-api-key' } }));
    const result = await runCli(['run', 'hi', '--cwd', workDir, '--json'], { env });

    expect(result.code).toBe(3);
    const events = agentEvents(jsonLines(result.stdout));
    expect(events.at(-1)).toEqual({
      type: 'agent.error',
      error: expect.objectContaining({ code: 'authentication', transient: false, status: 401 }),
    });
    // claude alone would retry a 401 for minutes.
    expect(model!.conversationRequests().length).toBeLessThanOrEqual(2);
  });

  it('a 401 in human output names the failure on stderr', async () => {
    const { env } = await setup(() => ({ error: { status: 401 } }));
    const result = await runCli(['run', 'hi', '--cwd', workDir], { env });

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/error \(authentication\): API error 401/);
  });

  it.each([
    ['the process group (Ctrl-C in a terminal)', true],
    ['the agentd process alone', false],
  ])('SIGINT to %s mid-stream interrupts the turn and exits 130', async (_target, group) => {
    const words = 'word '.repeat(400);
    const { env } = await setup([{ text: words, chunkSize: 5, chunkDelayMs: 200 }]);
    const cli = spawnCli(['run', 'talk for a long time', '--cwd', workDir], { env, detached: group });
    await waitFor(() => cli.stdout.includes('word'));
    const pid = cli.child.pid!;
    process.kill(group ? -pid : pid, 'SIGINT');
    const result = await cli.done;

    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupting');
    expect(result.stderr).toMatch(/error \(cancelled\)/);
    expect(result.stdout.split('word').length - 1).toBeLessThan(400);
    if (group) {
      // Nothing of the run is left behind: claude exits with it.
      await waitFor(() => {
        try {
          process.kill(-pid, 0);
          return false;
        } catch {
          return true;
        }
      });
    }
  });

  it('--json prints one AgentEvent per line with the documented shapes', async () => {
    const { env } = await setup((request) =>
      toolResults(request).length > 0
        ? { text: 'Listed.', usage: { input_tokens: 50, output_tokens: 10 } }
        : {
            content: [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_shapes', name: 'Bash', input: { command: 'echo shapes' } },
            ],
            usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 1000 },
          },
    );
    const result = await runCli(['run', 'list', '--cwd', workDir, '--allowed-tools', 'Bash', '--json'], {
      env,
    });

    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    // Journal records of one agentd session, gapless from its first input to the worker's stop.
    expect(lines.map((line) => line.cursor)).toEqual(lines.map((_, index) => index + 1));
    expect(new Set(lines.map((line) => line.sessionId)).size).toBe(1);
    expect(lines[0]).toMatchObject({ type: 'input.accepted', data: { text: 'list' } });
    expect(lines.at(-1)?.type).toBe('execution.stopped');
    const events = agentEvents(lines);
    for (const event of events) expect(eventTypes).toHaveProperty([event.type]);
    const first = <T extends string>(type: T) => events.find((event) => event.type === type);

    const started = first('session.started');
    expect(started).toMatchObject({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      model: expect.any(String),
      cwd: workDir,
      permissionMode: 'default',
    });
    expect(started!.tools).toContain('Bash');
    expect(first('agent.message')).toMatchObject({
      text: 'Let me look.',
      messageId: expect.stringMatching(/^msg_/),
    });
    expect(first('agent.tool_call')).toMatchObject({
      toolUseId: 'toolu_shapes',
      name: 'Bash',
      input: { command: 'echo shapes' },
      detail: 'Bash: echo shapes',
      parentToolUseId: null,
    });
    expect(first('agent.tool_result')).toMatchObject({
      toolUseId: 'toolu_shapes',
      content: 'shapes',
      isError: false,
    });

    const delivered = first('input.delivered');
    const completed = events.findLast((event) => event.type === 'agent.turn.completed')!;
    expect(completed).toMatchObject({
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: false,
      result: 'Listed.',
      sessionId: started!.sessionId,
      usage: { inputTokens: 150, outputTokens: 30, cacheReadInputTokens: 1000, cacheCreationInputTokens: 0 },
      costUsd: expect.any(Number),
      numTurns: 2,
      inputIds: [delivered!.inputId],
    });
    expect(completed.costUsd).toBeGreaterThan(0);
    const modelUsage = Object.values(completed.modelUsage as Record<string, { costUsd: number }>);
    expect(modelUsage).toHaveLength(1);
    expect(modelUsage[0]!.costUsd).toBe(completed.costUsd);
    // Presentation events keep the native message they came from.
    expect(first('agent.tool_call')!.raw).toMatchObject({ type: 'assistant' });
  });

  describe('usage and credential errors', () => {
    it.each([
      [['--max-turns', 'abc'], /--max-turns/],
      [['--permission-mode', 'nope'], /--permission-mode.*expected one of default/],
    ])('%j exits 2 without starting claude', async (flags, message) => {
      const { env } = await setup([]);
      const result = await runCli(['run', 'hi', ...flags], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(model!.requests).toHaveLength(0);
    });

    it('a bad CLAUDE_* variable exits 2 and names the variable', async () => {
      const { env } = await setup([]);
      const result = await runCli(['run', 'hi'], { env: { ...env, CLAUDE_MAX_TURNS: 'abc' } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('CLAUDE_MAX_TURNS must be a number');
      expect(model!.requests).toHaveLength(0);
    });

    it('--help documents the exit codes', async () => {
      const result = await runCli(['--help'], { env: cleanEnv() });
      expect(result.code).toBe(0);
      for (const line of [
        /^ {2}2 +usage/m,
        /^ {2}3 +credentials/m,
        /^ {2}4 +not found, conflict/m,
        /^ {2}130 /m,
      ])
        expect(result.stdout).toMatch(line);
    });

    it('without credentials it exits 3 and says what to set', async () => {
      const result = await runCli(['run', 'hi'], { env: cleanEnv() });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('no model credentials found');
      for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']) {
        expect(result.stderr).toContain(name);
      }
      expect(result.stdout).toBe('');
    });
  });
});
