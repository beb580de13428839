/**
 * `agentd seed …` as a user types it: the CLI, the detached workers it starts (the real SDK and
 * `claude` against the scripted model), and the checks agentd runs itself.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cliEntry,
  createHarness,
  type Harness,
  killGroup,
  linesOf,
  runCli,
  spawnCli,
  waitFor,
} from './helpers.js';
import { assertIsolated } from './isolated-env.js';
import { bash, progress } from './support/seed-turns.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** A seed file in the test's root whose working directory is the harness's `cwd`. */
function seedFile(h: Harness, text: string): string {
  const file = join(h.root, 'seed.yaml');
  writeFileSync(file, `cwd: ./work\n${text}`);
  return file;
}

const answerSeed = `goal: Write the answer
criteria:
  - id: answer
    description: answer.txt holds 42
    check: grep -qx 42 answer.txt
`;

async function seedStatus(h: Harness, runId: string): Promise<Record<string, unknown>> {
  const result = await runCli(['seed', 'status', runId, '--json', '--data-dir', h.dataDir], h.env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** The terminal's escape character: a display that redraws in place writes it, plain output never. */
const esc = String.fromCharCode(27);

describe('cli: seed files', () => {
  it('seed run: a bad seed file names the field and the line, exits 2 and starts nothing', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    const file = seedFile(
      h,
      `goal: Something
criteria:
  - id: first
    description: fine
  - id: second
    description: the check is not a string
    check: 14
`,
    );
    const result = await runCli(['seed', 'run', file, '--data-dir', h.dataDir], h.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `agentd: ${file}: criteria[1].check: expected a string, got number, line 8 (invalid_input)`,
    ]);
    const list = await runCli(['seed', 'list', '--json', '--data-dir', h.dataDir], h.env);
    expect(JSON.parse(list.stdout)).toEqual([]);
    expect(await h.runtime.listSessions()).toEqual([]);
    expect(h.model.conversationRequests()).toHaveLength(0);

    writeFileSync(file, 'goal: [unclosed\n');
    const syntax = await runCli(['seed', 'run', file, '--data-dir', h.dataDir], h.env);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(
      /^agentd: .*seed\.yaml: not valid YAML or JSON: .*, line \d+ \(invalid_input\)\n$/,
    );
  });
});

describe('cli: seed run', () => {
  it('seed run: on a pipe, plain lines without escape codes, exit 0 when satisfied; seed list and status agree', async () => {
    harness = await createHarness({
      script: [
        bash('echo 42 > answer.txt'),
        progress('answer', 'met', 'wrote answer.txt'),
        { text: 'All done.' },
      ],
    });
    const h = harness;
    const result = await runCli(
      ['seed', 'run', seedFile(h, answerSeed), '--data-dir', h.dataDir],
      h.env,
      90_000,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain(esc);
    const runId = /^run (\S+)$/m.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(result.stdout).toContain('iteration 1');
    expect(result.stdout).toContain('criterion answer: agent reports met (wrote answer.txt)');
    expect(result.stdout).toContain('check answer: passed (exit 0, expected 0)');
    expect(result.stdout).toContain('seed satisfied: all 1 criterion met: 1 verified by their checks');
    expect(result.stdout).toContain('final message: All done.');
    const status = await seedStatus(h, runId!);
    expect(status).toMatchObject({ runId, state: 'satisfied', iterations: 1 });
    // Every other client reads the seed's events from the session's journal.
    const events = await runCli(['events', runId!, '--data-dir', h.dataDir], h.env);
    expect(events.stdout).toMatch(/^\[\d+\] seed: Write the answer \(1 criterion\)$/m);
    expect(events.stdout).toMatch(/^\[\d+\] check answer: passed \(exit 0, expected 0\)$/m);
    expect(events.stdout).toMatch(/^\[\d+\] seed satisfied: all 1 criterion met/m);
    const list = await runCli(['seed', 'list', '--data-dir', h.dataDir], h.env);
    expect(list.stdout).toMatch(
      new RegExp(`^${runId}  satisfied +1/1 met  iteration 1/3  Write the answer\\n$`),
    );
  });

  it('seed run --json: NDJSON of the run’s events and its result; a check that never passes exits 1', async () => {
    harness = await createHarness({
      script: [progress('answer', 'met', 'trust me'), { text: 'Done.' }],
    });
    const h = harness;
    const file = seedFile(h, `${answerSeed}maxIterations: 1\n`);
    const result = await runCli(['seed', 'run', file, '--json', '--data-dir', h.dataDir], h.env, 90_000);
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { type: string; data?: Record<string, unknown> } & Record<string, unknown>,
      );
    const types = lines.map((line) => line.type);
    expect(types).toContain('seed.started');
    expect(types).toContain('seed.criterion');
    // grep exits 2 on a file that does not exist; agentd kept what it printed.
    const check = lines.find((line) => line.type === 'seed.check')?.data;
    expect(check).toMatchObject({ passed: false, exitCode: 2, expected: 0 });
    expect(check?.outputTail).toContain('answer.txt');
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ type: 'seed.result', state: 'unsatisfied', iterations: 1 });
    expect((last.criteria as Array<Record<string, unknown>>)[0]).toMatchObject({
      id: 'answer',
      state: 'failed',
      met: false,
      reported: { state: 'met', evidence: 'trust me' },
    });
  });

  it('seed run: the CLI SIGKILLed mid-run; the worker goes on and seed status is right', async () => {
    harness = await createHarness({
      script: [
        bash('sleep 2; echo 42 > answer.txt'),
        progress('answer', 'met', 'wrote answer.txt'),
        { text: 'All done.' },
      ],
    });
    const h = harness;
    const cli = h.track(spawnCli(['seed', 'run', seedFile(h, answerSeed), '--data-dir', h.dataDir], h.env));
    const output = linesOf(cli);
    const runLine = await waitFor(() => output.lines.find((line) => line.startsWith('run ')), {
      what: 'the run id',
    });
    const runId = runLine.slice('run '.length);
    await waitFor(() => output.lines.some((line) => line.startsWith('tool: ')), {
      what: 'the first tool call',
    });
    killGroup(cli.pid);
    await output.closed;
    const running = await seedStatus(h, runId);
    expect(running.state).toBe('running');
    const status = await waitFor(
      async () => {
        const each = await seedStatus(h, runId);
        return each.state === 'satisfied' ? each : null;
      },
      { what: 'the run to be satisfied without its CLI', timeoutMs: 60_000 },
    );
    expect((status.criteria as Array<Record<string, unknown>>)[0]).toMatchObject({ state: 'verified' });
    const human = await runCli(['seed', 'status', runId, '--data-dir', h.dataDir], h.env);
    expect(human.stdout).toContain('seed satisfied: all 1 criterion met');
    expect(human.stdout).toContain('check: grep -qx 42 answer.txt (exit 0, expected 0, iteration 1)');
  });

  it('seed run: Ctrl-C leaves the run interrupted (exit 130); seed resume finishes it', async () => {
    harness = await createHarness({
      script: [
        progress('answer', 'in_progress', 'starting'),
        { text: 'slow', delayMs: 60_000 },
        bash('echo 42 > answer.txt'),
        progress('answer', 'met', 'wrote answer.txt'),
        { text: 'All done.' },
      ],
    });
    const h = harness;
    const cli = h.track(spawnCli(['seed', 'run', seedFile(h, answerSeed), '--data-dir', h.dataDir], h.env));
    const output = linesOf(cli);
    await waitFor(() => h.model.conversationRequests().length >= 2, { what: 'the slow request' });
    const runId = output.lines.find((line) => line.startsWith('run '))!.slice('run '.length);
    killGroup(cli.pid, 'SIGINT');
    expect(await output.closed).toBe(130);
    expect(output.lines).toContain(
      `seed interrupted: its worker stopped: stop requested; continue with agentd seed resume ${runId}`,
    );
    const interrupted = await seedStatus(h, runId);
    expect(interrupted).toMatchObject({ state: 'interrupted', live: null });
    expect((interrupted.criteria as Array<Record<string, unknown>>)[0]).toMatchObject({
      state: 'in_progress',
      reported: { state: 'in_progress', evidence: 'starting' },
    });

    const resumed = await runCli(['seed', 'resume', runId, '--data-dir', h.dataDir], h.env, 90_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('seed satisfied');
    expect(resumed.stdout).toContain('check answer: passed');
    const again = await runCli(['seed', 'resume', runId, '--data-dir', h.dataDir], h.env);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('is satisfied: only an interrupted run resumes (invalid_state)');
  });

  it('seed run: in a pseudo-terminal the display redraws in place', async () => {
    harness = await createHarness({
      script: [
        bash('echo 42 > answer.txt'),
        progress('answer', 'met', 'wrote answer.txt'),
        { text: 'All done.' },
      ],
    });
    const h = harness;
    const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
    const command = [
      process.execPath,
      cliEntry,
      'seed',
      'run',
      seedFile(h, answerSeed),
      '--data-dir',
      h.dataDir,
    ]
      .map(quote)
      .join(' ');
    // util-linux `script` gives the CLI a terminal; what it drew is what `script` prints.
    const child = h.track(
      spawn('script', ['-qec', command, '/dev/null'], {
        cwd: assertIsolated(h.env),
        env: h.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let screen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, screen).toBe(0);
    // Redrawn in place: back to the display's first line, cleared below, drawn again.
    expect(screen).toContain(`${esc}[J`);
    expect(screen).toMatch(new RegExp(`${esc}\\[\\d+F${esc}\\[J`));
    expect(screen).toMatch(/✓ answer +verified +wrote answer\.txt/);
    expect(screen).toMatch(/tool: Bash/);
    expect(screen).toMatch(/iteration 1\/3/);
    expect(screen).toMatch(/tokens \d+ in \/ \d+ out, \$\d/);
    expect(screen).toContain('seed satisfied');
  });
});
