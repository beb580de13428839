/**
 * Approvals and questions: persisted, answered exactly once, surviving the death of the worker
 * and of the process that started it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, type InteractionRecord, InvalidInputError } from '../../src/index.js';
import { toolResults } from '../../src/testing/index.js';
import {
  askWhichTurn,
  checkGuarantees,
  childrenOf,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  killGroup,
  readJournal,
  readUntil,
  startParent,
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

const conflict = (error: unknown) => error instanceof ConflictError && error.code === 'conflict';

describe('approvals survive the death of worker and parent', () => {
  it('a pending approval stays pending; approved after a new process resumes, the tool runs and the model gets its output', async () => {
    harness = await createHarness({
      script: [bash('touch made.txt && echo made-by-approval'), { text: 'the file is made' }],
    });
    const h = harness;
    const parent = await startParent(h, 'make a file please');
    const interaction = await waitFor(
      async () => (await h.runtime.interactions({ sessionId: parent.sessionId, state: 'pending' }))[0],
      { what: 'the approval to be asked' },
    );
    expect([interaction.kind, interaction.toolName]).toEqual(['approval', 'Bash']);
    expect((interaction.request.input as { command?: string }).command).toBe(
      'touch made.txt && echo made-by-approval',
    );

    // Kill the worker (with its claude) and the parent.
    const claude = childrenOf(parent.pid);
    killGroup(parent.pid);
    killGroup(parent.child.pid);
    await waitFor(
      () =>
        !isRunning(parent.pid) &&
        claude.every((pid) => !isRunning(pid)) &&
        (parent.child.exitCode !== null || parent.child.signalCode !== null),
      { what: 'worker, claude and parent to die' },
    );
    expect(existsSync(join(h.cwd, 'made.txt'))).toBe(false);

    const runtime = await h.openRuntime();
    const pending = await runtime.interactions({ state: 'pending' });
    expect(pending.map((each) => each.id)).toEqual([interaction.id]);
    expect((await runtime.listExecutions(parent.sessionId)).map((each) => each.state)).toEqual(['failed']);
    await checkGuarantees(runtime, parent.sessionId, { pending: [interaction.id], model: h.model });

    const answered = await runtime.answer(interaction.id, { decision: 'approve' });
    expect(answered.state).toBe('answered');
    const resumed = await runtime.resume(parent.sessionId);
    const events = await readUntil(runtime, parent.sessionId, isEvent('work.settled', resumed.id));

    expect(existsSync(join(h.cwd, 'made.txt'))).toBe(true);
    const result = events.find(isEvent('agent.tool_result'));
    expect(result && dataOf(result).content).toContain('made-by-approval');
    const last = h.model.conversationRequests().at(-1)!;
    expect(toolResults(last)).toEqual([
      {
        toolUseId: interaction.toolUseId,
        content: expect.stringContaining('made-by-approval'),
        isError: false,
      },
    ]);
    await expect(runtime.answer(interaction.id, { decision: 'deny', reason: 'too late' })).rejects.toSatisfy(
      conflict,
    );
    await checkGuarantees(runtime, parent.sessionId, { model: h.model });
  });
});

describe('approvals and questions on a live worker', () => {
  it('deny with a reason reaches the model; a second answer conflicts; AskUserQuestion takes answers', async () => {
    harness = await createHarness({
      script: [
        bash('touch forbidden.txt'),
        { text: 'all right, no file' },
        askWhichTurn,
        { text: 'you picked B' },
      ],
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'touch a file', cwd: h.cwd });
    const requested = (await readUntil(h.runtime, session.id, isEvent('interaction.requested'))).at(-1)!;
    const approval = dataOf(requested).interaction as InteractionRecord;
    expect(approval.kind).toBe('approval');
    expect((await h.runtime.interactions({ state: 'pending' })).map((each) => each.id)).toEqual([
      approval.id,
    ]);

    // A wrong shape changes nothing.
    await expect(h.runtime.answer(approval.id, { answers: { x: 'y' } })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect((await h.runtime.store.getInteraction(approval.id))?.state).toBe('pending');

    const reason = 'Not today: write into the scratch directory instead.';
    await h.runtime.answer(approval.id, { decision: 'deny', reason });
    await expect(h.runtime.answer(approval.id, { decision: 'approve' })).rejects.toSatisfy(conflict);
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    expect(existsSync(join(h.cwd, 'forbidden.txt'))).toBe(false);
    expect(toolResults(h.model.conversationRequests()[1]!)).toEqual([
      { toolUseId: approval.toolUseId, content: expect.stringContaining(reason), isError: true },
    ]);
    expect((await h.runtime.store.getInteraction(approval.id))?.answer).toEqual({ decision: 'deny', reason });

    let before = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'ask me something' });
    const asked = (
      await readUntil(h.runtime, session.id, isEvent('interaction.requested'), { after: before })
    ).at(-1)!;
    const question = dataOf(asked).interaction as InteractionRecord;
    expect([question.kind, question.toolName]).toEqual(['question', 'AskUserQuestion']);
    await h.runtime.answer(question.id, { answers: { 'Which?': 'B' } });
    await expect(h.runtime.answer(question.id, { answers: { 'Which?': 'A' } })).rejects.toSatisfy(conflict);
    before = asked.cursor;
    await readUntil(h.runtime, session.id, isEvent('work.settled'), { after: before });
    const results = toolResults(h.model.conversationRequests().at(-1)!);
    const answer = results.find((result) => result.toolUseId === question.toolUseId);
    expect(answer?.isError).toBe(false);
    expect(answer?.content).toContain('"Which?"="B"');

    const journal = await checkGuarantees(h.runtime, session.id, { model: h.model });
    expect(
      journal.filter(isEvent('interaction.answered')).map((event) => dataOf(event).interactionId),
    ).toEqual([approval.id, question.id]);
    expect(await h.runtime.interactions({ state: 'pending' })).toEqual([]);
  });
});
