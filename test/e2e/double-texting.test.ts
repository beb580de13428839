/**
 * Double texting: a message sent while its session's turn is still streaming waits for the turn
 * (`enqueue`), is refused (`reject`), interrupts the turn (`interrupt`) or interrupts it and takes
 * it back (`rollback`). What the model was shown is read from the scripted model's request log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type EventRecord, SessionBusyError } from '../../src/index.js';
import { requestText, type ScriptTurn } from '../../src/testing/index.js';
import {
  checkGuarantees,
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  killGroup,
  readJournal,
  readUntil,
  waitFor,
  workerLog,
} from './helpers.js';
import { backends } from './support/backends.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** A reply that streams for about a minute: the turn is mid-stream whenever the test acts. */
const slowReply = (text: string): ScriptTurn => ({
  text: `${text} ${'and on '.repeat(200)}`,
  chunkSize: 4,
  chunkDelayMs: 150,
});

/** Waits until the model is streaming the answer to the `n`th conversation request. */
async function streaming(h: Harness, n: number): Promise<void> {
  await waitFor(() => h.model.conversationRequests().length >= n, { what: `model request ${n}` });
  // The model has started answering: a chunk or two are out.
  await waitFor(() => Date.now() - h.model.conversationRequests()[n - 1]!.receivedAt > 600, {
    what: 'the answer to be streaming',
  });
}

/** The input's turn was delivered and the work settled after it. */
function settledAfter(inputId: string, journal: EventRecord[]): boolean {
  const delivered = journal.find(
    (event) => event.type === 'input.delivered' && dataOf(event).inputId === inputId,
  );
  return (
    delivered !== undefined &&
    journal.some((event) => event.type === 'work.settled' && event.cursor > delivered.cursor)
  );
}

async function settled(h: Harness, sessionId: string, inputId: string): Promise<EventRecord[]> {
  return waitFor(
    async () => {
      const journal = await readJournal(h.runtime, sessionId);
      return settledAfter(inputId, journal) ? journal : null;
    },
    { what: `the turn of ${inputId} to settle`, timeoutMs: 90_000 },
  ).catch(async (error: unknown) => {
    const journal = await readJournal(h.runtime, sessionId);
    throw new Error(
      `${String(error)}; journal: ${journal
        .filter((event) => event.type !== 'agent.text_delta' && event.type !== 'claude.message')
        .map((event) => `${event.cursor}:${event.type}`)
        .join(' ')}; logs: ${(await h.runtime.listExecutions(sessionId))
        .map((execution) => workerLog(h.dataDir, execution.id).slice(-3000))
        .join('\n')}`,
    );
  });
}

describe.each(backends)('double texting while a turn streams (%s)', { timeout: 180_000 }, (backend) => {
  it('enqueue (the default): the turn finishes, then the message is the next turn', async () => {
    // A shorter stream (a few seconds): enqueue waits for it to finish.
    harness = await createHarness({
      backend,
      script: [
        { text: `first answer ${'x'.repeat(120)} end-of-first`, chunkSize: 4, chunkDelayMs: 60 },
        { text: 'second answer' },
      ],
    });
    const h = harness;
    const { session, input: first } = await h.runtime.createSession({
      backend,
      prompt: 'question one',
      cwd: h.cwd,
    });
    await streaming(h, 1);
    const second = await h.runtime.send(session.id, { text: 'question two' });
    expect(second.state).toBe('accepted');
    const journal = await settled(h, session.id, second.id);
    const completed = journal.filter(isEvent('agent.turn.completed'));
    expect(completed.map((event) => [dataOf(event).isError, dataOf(event).inputIds])).toEqual([
      [false, [first!.id]],
      [false, [second.id]],
    ]);
    expect(journal.some(isEvent('turn.interrupted'))).toBe(false);
    // The model saw the whole first answer before the second question.
    const requests = h.model.conversationRequests();
    expect(requests).toHaveLength(2);
    expect(requestText(requests[1]!)).toContain('end-of-first');
    expect(requestText(requests[1]!)).toContain('question two');
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });

  it('reject: session_busy, nothing journaled; the session default applies when the message says nothing', async () => {
    harness = await createHarness({ backend, script: [slowReply('first answer'), { text: 'later answer' }] });
    const h = harness;
    const { session } = await h.runtime.createSession({
      backend,
      prompt: 'question one',
      cwd: h.cwd,
      ifBusy: 'reject',
    });
    await streaming(h, 1);
    const before = await readJournal(h.runtime, session.id);
    const refused = h.runtime.send(session.id, { text: 'too soon', messageId: 'm-soon' });
    await expect(refused).rejects.toBeInstanceOf(SessionBusyError);
    await expect(
      h.runtime.send(session.id, { text: 'too soon', messageId: 'm-soon', ifBusy: 'reject' }),
    ).rejects.toMatchObject({ code: 'session_busy' });
    // An unknown strategy is a user's mistake, also before anything is written.
    await expect(
      h.runtime.send(session.id, { text: 'x', ifBusy: 'sometimes' as never }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    const after = await readJournal(h.runtime, session.id);
    expect(
      after.filter((event) => event.type === 'input.accepted').map((event) => dataOf(event).text),
    ).toEqual(['question one']);
    expect(after.length - before.length).toBeGreaterThanOrEqual(0);
    expect((await h.runtime.listInputs(session.id)).map((input) => input.messageId)).not.toContain('m-soon');
    // Once the turn is over the same message goes through.
    await h.runtime.interrupt(session.id);
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const later = await h.runtime.send(session.id, { text: 'now then', messageId: 'm-soon' });
    await settled(h, session.id, later.id);
    expect(h.model.conversationRequests()).toHaveLength(2);
  });

  it('interrupt: the turn is cut through the SDK, its events stay (marked), the new message is delivered', async () => {
    harness = await createHarness({
      backend,
      script: [slowReply('first answer'), { text: 'second answer' }],
    });
    const h = harness;
    const { session, input: first } = await h.runtime.createSession({
      backend,
      prompt: 'question one',
      cwd: h.cwd,
    });
    await streaming(h, 1);
    const second = await h.runtime.send(session.id, { text: 'question two', ifBusy: 'interrupt' });
    const journal = await settled(h, session.id, second.id);

    const accepted = journal.find(
      (event) => event.type === 'input.accepted' && dataOf(event).inputId === second.id,
    )!;
    expect(dataOf(accepted).ifBusy).toBe('interrupt');
    const request = journal.find(isEvent('control.interrupt'))!;
    expect(dataOf(request)).toMatchObject({ inputId: first!.id, byInputId: second.id });
    const errors = journal.filter(isEvent('agent.error'));
    expect(errors.map((event) => (dataOf(event).error as { code: string }).code)).toEqual(['cancelled']);
    const mark = journal.find(isEvent('turn.interrupted'))!;
    expect(dataOf(mark)).toMatchObject({ inputId: first!.id, byInputId: second.id, rolledBack: false });
    // The marked range holds the interrupted turn's events, kept.
    const range = journal.filter(
      (event) =>
        event.cursor >= (dataOf(mark).fromCursor as number) &&
        event.cursor <= (dataOf(mark).toCursor as number),
    );
    expect(
      range.some((event) => event.type === 'input.delivered' && dataOf(event).inputId === first!.id),
    ).toBe(true);
    expect(range.some(isEvent('agent.error'))).toBe(true);
    // The model's stream was cut: the second request came long before the first answer could end,
    // and it carries the first question (the turn stays in the conversation) and the second.
    const requests = h.model.conversationRequests();
    expect(requests).toHaveLength(2);
    expect(requestText(requests[1]!)).toContain('question one');
    expect(requestText(requests[1]!)).toContain('question two');
    expect(requestText(requests[1]!)).not.toContain('and on '.repeat(150));
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });

  // rollback is Claude's only (see below).
  it.each(backend === 'claude' ? (['interrupt', 'rollback'] as const) : (['interrupt'] as const))(
    'a worker SIGKILLed during an %s: the new message is delivered once by the next worker, nothing replayed',
    async (strategy) => {
      harness = await createHarness({
        backend,
        script: [{ text: 'zero answer' }, slowReply('first answer'), { text: 'second answer' }],
      });
      const h = harness;
      const { session, input: zero } = await h.runtime.createSession({
        backend,
        prompt: 'question zero',
        cwd: h.cwd,
      });
      await settled(h, session.id, zero!.id);
      const first = await h.runtime.send(session.id, { text: 'question one' });
      await streaming(h, 2);
      const live = (await h.runtime.liveExecution(session.id))!;
      const second = await h.runtime.send(session.id, { text: 'question two', ifBusy: strategy });
      // Killed as the interrupt is asked for, before the worker could act on it.
      killGroup(live.pid!);
      await waitFor(async () => (await h.runtime.liveExecution(session.id)) === null, {
        what: 'the killed worker to be noticed',
      });
      expect((await h.runtime.getInput(session.id, second.messageId))?.state).toBe('accepted');
      await h.runtime.resume(session.id);
      const journal = await settled(h, session.id, second.id);
      const requests = h.model.conversationRequests();
      expect(requests).toHaveLength(3);
      const shown = requestText(requests[2]!);
      expect(shown).toContain('question two');
      if (strategy === 'rollback') {
        expect(shown).not.toContain('question one');
        expect(dataOf(journal.find(isEvent('turn.interrupted'))!)).toMatchObject({
          inputId: first.id,
          rolledBack: true,
        });
      } else expect(shown).toContain('question one');
      await checkGuarantees(h.runtime, session.id, { model: h.model, acknowledged: [second.messageId] });
    },
  );
});

// Claude only: rollback resumes the native session before a turn, which Codex threads cannot
// (the runtime refuses it for them, 0140).
describe('double texting while a turn streams, claude only', { timeout: 180_000 }, () => {
  it('rollback: the interrupted turn is taken back; the model never sees it again', async () => {
    harness = await createHarness({
      script: [
        { text: 'zero answer' },
        slowReply('first answer'),
        { text: 'second answer' },
        { text: 'third' },
      ],
    });
    const h = harness;
    const { session, input: zero } = await h.runtime.createSession({ prompt: 'question zero', cwd: h.cwd });
    await settled(h, session.id, zero!.id);
    const first = await h.runtime.send(session.id, { text: 'question one (to forget)' });
    await streaming(h, 2);
    const second = await h.runtime.send(session.id, { text: 'question two', ifBusy: 'rollback' });
    const journal = await settled(h, session.id, second.id);

    const mark = journal.find(isEvent('turn.interrupted'))!;
    expect(dataOf(mark)).toMatchObject({ inputId: first.id, byInputId: second.id, rolledBack: true });
    const requests = h.model.conversationRequests();
    expect(requests).toHaveLength(3);
    const shown = requestText(requests[2]!);
    expect(shown).toContain('question zero');
    expect(shown).toContain('zero answer');
    expect(shown).toContain('question two');
    expect(shown).not.toContain('question one (to forget)');
    expect(shown).not.toContain('first answer');
    // The rollback holds for later turns too (a new worker resumes the same native session).
    await h.runtime.stop(session.id);
    await readUntil(h.runtime, session.id, isEvent('execution.stopped'));
    const third = await h.runtime.send(session.id, { text: 'question three' });
    await settled(h, session.id, third.id);
    const last = requestText(h.model.conversationRequests().at(-1)!);
    expect(last).toContain('second answer');
    expect(last).not.toContain('question one (to forget)');
    await checkGuarantees(h.runtime, session.id, { model: h.model });
  });
});
