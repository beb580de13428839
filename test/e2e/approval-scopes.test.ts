/**
 * Approval scopes: an approval answered for the session or as a rule of the role decides later
 * matching tool uses without asking anyone, journaled with the rule that decided; persisted, so a
 * worker SIGKILLed in between changes nothing; listed by `agentd rules`, revocable.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord, InteractionRecord } from '../../src/index.js';
import { toolResults } from '../../src/testing/index.js';
import {
  checkGuarantees,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  killGroup,
  readJournal,
  readUntil,
  runCli,
  waitFor,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

const bash = (command: string) => ({
  content: [{ type: 'tool_use' as const, name: 'Bash', input: { command, description: 'run a command' } }],
});

async function pendingApproval(
  h: Harness,
  sessionId: string,
  seen: string[] = [],
): Promise<InteractionRecord> {
  return waitFor(
    async () =>
      (await h.runtime.interactions({ sessionId, state: 'pending' })).find((each) => !seen.includes(each.id)),
    { what: 'an approval to be asked', timeoutMs: 60_000 },
  );
}

async function settledAfter(h: Harness, sessionId: string, after: number): Promise<EventRecord[]> {
  return readUntil(h.runtime, sessionId, isEvent('work.settled'), { after, timeoutMs: 90_000 });
}

/** SIGKILLs the session's live worker (and its claude) and waits until the runtime has noticed. */
async function killWorker(h: Harness, sessionId: string): Promise<void> {
  const live = await h.runtime.liveExecution(sessionId);
  expect(live?.pid).toBeTruthy();
  killGroup(live!.pid!);
  await waitFor(async () => (await h.runtime.liveExecution(sessionId)) === null, {
    what: 'the killed worker to be noticed',
  });
}

describe('approval scopes across a worker SIGKILL', { timeout: 240_000 }, () => {
  it('session: later matching commands are approved without asking, journaled with the rule; revoked, they ask again', async () => {
    harness = await createHarness({
      script: [
        bash('touch one.txt'),
        { text: 'ran one' },
        bash('touch two.txt'),
        { text: 'ran two' },
        bash('mkdir otherdir'),
        { text: 'touched' },
        bash('touch three.txt'),
        { text: 'ran three' },
      ],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'make file one', cwd: h.cwd });
    const first = await pendingApproval(h, session.id);
    // A rule that does not cover the use it answers is refused, and nothing changes.
    await expect(
      h.runtime.answer(first.id, { decision: 'approve', scope: 'session', rule: 'Bash(ls:*)' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect((await h.runtime.store.getInteraction(first.id))?.state).toBe('pending');
    expect(await h.runtime.rules.list()).toEqual([]);
    await h.runtime.answer(first.id, { decision: 'approve', scope: 'session', rule: 'Bash(touch:*)' });
    await settledAfter(h, session.id, 0);
    const [rule] = await h.runtime.rules.list({ sessionId: session.id });
    expect(rule).toMatchObject({
      scope: 'session',
      target: session.id,
      rule: 'Bash(touch:*)',
      decision: 'approve',
      interactionId: first.id,
      revokedAt: null,
    });

    await killWorker(h, session.id);
    let cursor = (await readJournal(h.runtime, session.id)).at(-1)!.cursor;
    await h.runtime.send(session.id, { text: 'make file two' });
    let events = await settledAfter(h, session.id, cursor);
    const decided = events.find(isEvent('interaction.auto_decided'))!;
    expect(dataOf(decided)).toMatchObject({
      toolName: 'Bash',
      input: { command: 'touch two.txt' },
      decision: 'approve',
      rule: { id: rule!.id, rule: 'Bash(touch:*)', scope: 'session', target: session.id },
    });
    expect(events.some(isEvent('interaction.requested'))).toBe(false);
    expect(existsSync(join(h.cwd, 'two.txt'))).toBe(true);
    // The newest tool result the model got back is the approved command's.
    expect(toolResults(h.model.conversationRequests().at(-1)!).at(-1)).toMatchObject({
      toolUseId: dataOf(decided).toolUseId,
      isError: false,
    });

    // A command the rule does not cover is asked about, and stays pending until someone answers.
    cursor = events.at(-1)!.cursor;
    await h.runtime.send(session.id, { text: 'make a directory' });
    const touch = await pendingApproval(h, session.id, [first.id]);
    expect((touch.request.input as { command: string }).command).toBe('mkdir otherdir');
    await h.runtime.answer(touch.id, { decision: 'deny', reason: 'no files' });
    events = await settledAfter(h, session.id, cursor);
    expect(existsSync(join(h.cwd, 'otherdir'))).toBe(false);

    // Revoked, the rule decides nothing: touch is asked about again.
    const revoked = await runCli(['rules', 'revoke', rule!.id, '--json', '--data-dir', h.dataDir], h.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: rule!.id, revokedAt: expect.any(Number) });
    cursor = events.at(-1)!.cursor;
    await h.runtime.send(session.id, { text: 'make file three' });
    const again = await pendingApproval(h, session.id, [first.id, touch.id]);
    expect((again.request.input as { command: string }).command).toBe('touch three.txt');
    await h.runtime.answer(again.id, { decision: 'approve' });
    await settledAfter(h, session.id, cursor);
    expect(await h.runtime.rules.list({ sessionId: session.id })).toEqual([]);
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });

  it("rule: a deny for the role holds in the role's other sessions, across a worker SIGKILL; agentd rules lists it", async () => {
    harness = await createHarness({
      script: [
        bash('curl -s http://example.invalid/a'),
        { text: 'not fetched' },
        bash('curl -s http://example.invalid/b'),
        { text: 'refused again' },
      ],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'fetch a', cwd: h.cwd });
    const asked = await pendingApproval(h, session.id);
    await h.runtime.answer(asked.id, {
      decision: 'deny',
      reason: 'no network',
      scope: 'rule',
      rule: 'Bash(curl:*)',
    });
    await settledAfter(h, session.id, 0);
    await killWorker(h, session.id);

    const listed = await runCli(['rules', '--json', '--data-dir', h.dataDir], h.env);
    expect(listed.code, listed.stderr).toBe(0);
    const rules = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(rules).toEqual([
      expect.objectContaining({
        scope: 'role',
        target: `${session.organization}/${session.role}`,
        rule: 'Bash(curl:*)',
        decision: 'deny',
        interactionId: asked.id,
      }),
    ]);

    // Another session of the same role: denied by the rule, nobody asked.
    const other = await h.runtime.createSession({ prompt: 'fetch b', cwd: h.cwd });
    expect(other.session.role).toBe(session.role);
    const events = await settledAfter(h, other.session.id, 0);
    const decided = events.find(isEvent('interaction.auto_decided'))!;
    expect(dataOf(decided)).toMatchObject({
      decision: 'deny',
      rule: { id: rules[0]!.id, rule: 'Bash(curl:*)', scope: 'role' },
    });
    expect(await h.runtime.interactions({ sessionId: other.session.id })).toEqual([]);
    expect(toolResults(h.model.conversationRequests().at(-1)!)).toEqual([
      expect.objectContaining({
        content: expect.stringContaining('Denied by the permission rule Bash(curl:*)'),
        isError: true,
      }),
    ]);
    await checkGuarantees(h.runtime, other.session.id, { model: h.model });
  });
});
