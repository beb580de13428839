/**
 * Claude's native /goal through the closed command protocol: the real `claude` keeps the goal and
 * runs its own Stop-hook evaluation against the scripted model; agentd journals the lifecycle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/testing/index.js';
import { createHarness, type Harness, isEvent, readUntil, runCli } from './helpers.js';

let h: Harness;
let evaluations = 0;
beforeAll(async () => {
  h = await createHarness({
    script: (request: RecordedRequest) => {
      // claude's own Stop-hook evaluation of the goal is a request of its own.
      if (JSON.stringify(request.body ?? {}).includes('hook_event_name')) {
        evaluations++;
        return {
          text:
            evaluations < 2
              ? '{"ok": false, "reason": "done.txt is missing"}'
              : '{"ok": true, "reason": "it exists"}',
        };
      }
      return { text: 'working on it' };
    },
    env: { AGENTD_IDLE_TIMEOUT_MS: '120000' },
  });
});
afterAll(async () => {
  await h?.cleanup();
});

describe('native goals', () => {
  it('agentd goal sends /goal; set, evaluated and met are journaled; show gives the goal', async () => {
    const { session } = await h.runtime.createSession({ prompt: 'hello', cwd: h.cwd });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const sent = await runCli(
      ['goal', session.id, 'the file done.txt exists', '--json', '--data-dir', h.dataDir],
      h.env,
    );
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ text: '/goal the file done.txt exists' });
    const events = await readUntil(h.runtime, session.id, isEvent('goal.met'), { timeoutMs: 90_000 });
    const goals = events.filter((event) => event.type.startsWith('goal.'));
    expect(goals.map((event) => event.type)).toEqual(['goal.set', 'goal.evaluated', 'goal.met']);
    expect(goals[1]?.data).toMatchObject({
      condition: 'the file done.txt exists',
      reason: 'done.txt is missing',
    });
    const details = await h.runtime.getSession(session.id);
    expect(details.goal).toMatchObject({
      condition: 'the file done.txt exists',
      state: 'met',
      evaluations: 1,
    });
    const shown = await runCli(['show', session.id, '--data-dir', h.dataDir], h.env);
    expect(shown.stdout).toContain('goal      met: the file done.txt exists');

    await expect(h.runtime.goal(session.id, { objective: '  ' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(h.runtime.message(session.id, { text: '/goal' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
