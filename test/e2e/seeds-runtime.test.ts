/**
 * Seed runs through the runtime: the real SDK and `claude` against the scripted model, agentd
 * running each criterion's check itself after the agent's turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/testing/index.js';
import { createHarness, dataOf, type Harness, readJournal, waitFor } from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

const progress = (criterionId: string, state: string, evidence: string): ScriptTurn => ({
  content: [{ type: 'tool_use', name: 'mcp__agentd__report_progress', input: { criterionId, state, evidence } }],
});
const bash = (command: string): ScriptTurn => ({
  content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'work' } }],
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
      script: [bash('echo 42 > answer.txt'), progress('answer', 'met', 'wrote answer.txt'), { text: 'All done.' }],
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
