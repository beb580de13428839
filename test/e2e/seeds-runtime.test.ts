/**
 * Seed runs through the runtime: the real SDK and `claude` against the scripted model, agentd
 * running each criterion's check itself after the agent's turn.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  dataOf,
  type Harness,
  killGroup,
  lastUserText,
  readJournal,
  timesSent,
  waitFor,
} from './helpers.js';
import { bash, progress } from './support/seed-turns.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function finished(h: Harness, runId: string) {
  return waitFor(
    async () => {
      const status = await h.runtime.seeds.status(runId);
      return status.finished && !status.live ? status : null;
    },
    { what: 'the seed run to finish', timeoutMs: 60_000 },
  );
}

describe('seeds through the runtime', () => {
  it('seed: every check passes in agentd’s own run: satisfied, verified', async () => {
    harness = await createHarness({
      script: [
        bash('echo 42 > answer.txt'),
        progress('answer', 'met', 'wrote answer.txt'),
        { text: 'All done.' },
      ],
    });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Write the answer',
        criteria: [{ id: 'answer', description: 'answer.txt holds 42', check: 'grep -qx 42 answer.txt' }],
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('satisfied');
    expect(status.criteria[0]).toMatchObject({ id: 'answer', state: 'verified', met: true });
    expect(status.criteria[0]?.reported).toMatchObject({ state: 'met', evidence: 'wrote answer.txt' });
    expect(status.iteration).toBe(1);
    const journal = await readJournal(h.runtime, started.runId);
    const checks = journal.filter((event) => event.type === 'seed.check');
    expect(checks.map((event) => dataOf(event).passed)).toEqual([true]);
  });
});

describe('seeds: the agent’s word is not proof', () => {
  it('seed: a failing check with the model claiming success is never satisfied; iterations run out', async () => {
    harness = await createHarness({
      script: [
        progress('file', 'met', 'I created never.txt'),
        { text: 'Everything is done.' },
        progress('file', 'met', 'really, it is there'),
        { text: 'Done again.' },
      ],
    });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Create never.txt',
        criteria: [{ id: 'file', description: 'never.txt exists', check: 'cat never.txt' }],
        maxIterations: 2,
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('unsatisfied');
    expect(status.reason).toContain('file not met after 2 of 2 iterations');
    expect(status.criteria[0]).toMatchObject({ state: 'failed', met: false });
    expect(status.criteria[0]?.reported?.state).toBe('met');
    expect(status.criteria[0]?.lastCheck?.outputTail).toContain('never.txt');
    expect(status.iteration).toBe(2);
    const journal = await readJournal(h.runtime, started.runId);
    const checks = journal.filter((event) => event.type === 'seed.check').map(dataOf);
    expect(checks.map((check) => [check.iteration, check.passed])).toEqual([
      [1, false],
      [2, false],
    ]);
    // Exactly two iterations were sent, each once.
    const inputs = await h.runtime.listInputs(started.runId);
    expect(inputs.map((input) => input.messageId)).toEqual([
      `seed:${started.runId}:iteration:1`,
      `seed:${started.runId}:iteration:2`,
    ]);
    expect(journal.filter((event) => event.type === 'seed.finished')).toHaveLength(1);
  });

  it('seed: a check failing in iteration 1 goes back to the agent with its output, fixed in iteration 2', async () => {
    harness = await createHarness({
      script: [
        bash('echo broken > state.txt'),
        progress('state', 'met', 'wrote state.txt'),
        { text: 'Done.' },
        bash('echo fixed > state.txt'),
        progress('state', 'met', 'state.txt now says fixed'),
        { text: 'Fixed.' },
      ],
    });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Make state.txt say fixed',
        criteria: [
          {
            id: 'state',
            description: 'state.txt says fixed',
            check: 'grep -qx fixed state.txt || { echo "state.txt says: $(cat state.txt)"; exit 1; }',
          },
        ],
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('satisfied');
    expect(status.iteration).toBe(2);
    expect(status.criteria[0]).toMatchObject({ state: 'verified', met: true });
    // The model's first request of iteration 2 carries the failing check and what it printed.
    const requests = h.model.conversationRequests();
    const second = requests.find((request) => lastUserText(request).includes('agentd ran the checks'));
    expect(second, 'a request with the check results').toBeDefined();
    expect(lastUserText(second!)).toContain('state.txt says: broken');
    expect(lastUserText(second!)).toContain('iteration 2 of 3');
    expect(requests.indexOf(second!)).toBe(3);
  });

  it('seed: a criterion without a check is met by the agent’s report, shown as claimed', async () => {
    harness = await createHarness({
      script: [
        progress('notes', 'met', 'wrote the notes\nsecond line'),
        progress('build', 'met', 'built it'),
        { text: 'Done.' },
      ],
    });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Notes and build',
        criteria: [
          { id: 'notes', description: 'the notes are written' },
          { id: 'build', description: 'it builds', check: 'exit 0' },
        ],
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('satisfied');
    expect(status.criteria.map((criterion) => [criterion.id, criterion.state])).toEqual([
      ['notes', 'claimed'],
      ['build', 'verified'],
    ]);
    expect(status.reason).toBe('all 2 criteria met: 1 verified by their checks, 1 claimed by the agent');
  });
});

describe('seeds: limits', () => {
  it('seed: a run that reaches its budgetUsd with a criterion unmet ends budget_exceeded, sending no more iterations', async () => {
    harness = await createHarness({ script: [progress('file', 'met', 'surely'), { text: 'Done.' }] });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Create never.txt',
        criteria: [{ id: 'file', description: 'never.txt exists', check: 'test -f never.txt' }],
        budgetUsd: 0.000001,
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('budget_exceeded');
    expect(status.costUsd).toBeGreaterThan(0.000001);
    expect(status.reason).toMatch(/^spent \$[\d.]+ of \$0.000001 with file not met$/);
    expect((await h.runtime.listInputs(started.runId)).map((input) => input.messageId)).toEqual([
      `seed:${started.runId}:iteration:1`,
    ]);
  });
});

describe('seeds: prompts and tools', () => {
  it('seed: the system prompt holds the role, the constraints and how to report; the task the goal and numbered criteria', async () => {
    harness = await createHarness({ script: [progress('one', 'met', 'done'), { text: 'Done.' }] });
    const h = harness;
    await h.runtime.roles.create({ name: 'reviewer', systemPrompt: 'You are a careful reviewer.' });
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Review the change',
        criteria: [
          { id: 'one', description: 'the first point' },
          { id: 'two', description: 'the second point', check: 'true' },
        ],
        constraints: ['Never push to main.'],
        role: 'reviewer',
      },
      cwd: h.cwd,
    });
    const status = await finished(h, started.runId);
    expect(status.state).toBe('satisfied');
    const [first] = h.model.conversationRequests();
    const system = JSON.stringify(first?.body?.system);
    expect(system).toContain('You are a careful reviewer.');
    expect(system).toContain('Never push to main.');
    expect(system).toContain('mcp__agentd__report_progress');
    expect(first?.body?.tools?.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Bash', 'Read']));
    const task = lastUserText(first!);
    expect(task).toContain('Goal: Review the change');
    expect(task).toContain('1. [one] the first point');
    expect(task).toContain('2. [two] the second point (agentd checks: `true`)');
    // claude lists the in-process tool among the session's tools (it may defer MCP tools behind ToolSearch).
    const journalled = await readJournal(h.runtime, started.runId);
    const sessionStarted = journalled.find((event) => event.type === 'session.started');
    expect(dataOf(sessionStarted!).tools).toContain('mcp__agentd__report_progress');
    // The agent's call is journaled twice over: as its tool call, and as agentd's seed.criterion.
    const journal = await readJournal(h.runtime, started.runId);
    expect(
      journal.some(
        (event) => event.type === 'agent.tool_call' && dataOf(event).name === 'mcp__agentd__report_progress',
      ),
    ).toBe(true);
    expect(journal.filter((event) => event.type === 'seed.criterion').map(dataOf)).toEqual([
      { criterionId: 'one', state: 'met', evidence: 'done' },
    ]);
  });
});

describe('seeds: durable runs', () => {
  it('seed: a check cut short by a stop runs again on resume; the agent is not asked again', async () => {
    harness = await createHarness({ script: [progress('slow', 'met', 'ready'), { text: 'Done.' }] });
    const h = harness;
    const log = join(h.cwd, 'runs.log');
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'A slow check',
        criteria: [
          {
            id: 'slow',
            description: 'passes on its second run',
            check: 'echo run >> runs.log; [ "$(wc -l < runs.log)" -ge 2 ] || sleep 60',
          },
        ],
      },
      cwd: h.cwd,
    });
    const runId = started.runId;
    await waitFor(() => existsSync(log), { what: 'the check to start' });
    await h.runtime.seeds.stop(runId);
    const interrupted = await waitFor(
      async () => {
        const status = await h.runtime.seeds.status(runId);
        return status.state === 'interrupted' ? status : null;
      },
      { what: 'the run to be interrupted' },
    );
    expect(interrupted.criteria[0]).toMatchObject({ state: 'claimed', met: false, lastCheck: null });
    const journal = await readJournal(h.runtime, runId);
    expect(journal.filter((event) => event.type === 'seed.check')).toHaveLength(0);

    await h.runtime.seeds.resume(runId);
    const status = await finished(h, runId);
    expect(status.state).toBe('satisfied');
    expect(readFileSync(log, 'utf8')).toBe('run\nrun\n');
    const checks = (await readJournal(h.runtime, runId)).filter((event) => event.type === 'seed.check');
    expect(checks.map(dataOf).map((check) => [check.iteration, check.passed])).toEqual([[1, true]]);
    expect(h.model.conversationRequests()).toHaveLength(2);
  });

  it('seed: the worker SIGKILLed mid-turn; resume continues the run with its criteria', async () => {
    harness = await createHarness({
      script: [
        progress('first', 'met', 'first is done'),
        { text: 'slow', delayMs: 60_000 },
        progress('second', 'met', 'second is done'),
        { text: 'Done.' },
      ],
    });
    const h = harness;
    const started = await h.runtime.seeds.start({
      seed: {
        goal: 'Two things',
        criteria: [
          { id: 'first', description: 'the first thing', check: 'true' },
          { id: 'second', description: 'the second thing' },
        ],
      },
      cwd: h.cwd,
    });
    const runId = started.runId;
    await waitFor(() => h.model.conversationRequests().length >= 2, { what: 'the slow request' });
    const live = await h.runtime.liveExecution(runId);
    expect(live?.pid).toBeTypeOf('number');
    killGroup(live!.pid!);
    const interrupted = await waitFor(
      async () => {
        const status = await h.runtime.seeds.status(runId);
        return status.state === 'interrupted' ? status : null;
      },
      { what: 'the run to be interrupted' },
    );
    expect(interrupted.reason).toContain(`agentd seed resume ${runId}`);
    expect(interrupted.criteria[0]?.reported).toMatchObject({ state: 'met', evidence: 'first is done' });

    await h.runtime.seeds.resume(runId);
    const status = await finished(h, runId);
    expect(status.state).toBe('satisfied');
    expect(status.criteria.map((criterion) => [criterion.id, criterion.state])).toEqual([
      ['first', 'verified'],
      ['second', 'claimed'],
    ]);
    const inputs = await h.runtime.listInputs(runId);
    expect(inputs.map((input) => [input.messageId, input.state])).toEqual([
      [`seed:${runId}:iteration:1`, 'delivered'],
      [`seed:${runId}:iteration:1:continue:1`, 'delivered'],
    ]);
    expect(timesSent(h.model, 'was cut short')).toBe(1);
  });
});
