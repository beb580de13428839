import { describe, expect, it } from 'vitest';
import { JournalCorruptError } from '../errors/index.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { eventOf, journalEntry } from './journal-event.js';
import { readJournal, toJournalRecord } from './read-journal.js';

async function storeWithSession() {
  const store = await SqliteStore.open({ path: ':memory:' });
  const { session } = await store.createSession({
    id: 's1',
    provider: 'anthropic',
    cwd: '/',
    config: {},
    now: 1,
  });
  return { store, sessionId: session.id };
}

describe('readJournal', () => {
  it('reads events back typed: narrowing on type gives the data its fields', async () => {
    const { store, sessionId } = await storeWithSession();
    await store.appendEvents(
      sessionId,
      [
        journalEntry({ type: 'input.accepted', inputId: 'i1', messageId: 'm1', text: 'hello' }),
        journalEntry({ type: 'agent.message', text: 'hi there', messageId: null, raw: { kept: true } }),
      ],
      { now: 2 },
    );
    const [accepted, message] = await readJournal(store, sessionId);
    expect(accepted?.type === 'input.accepted' && accepted.data.text).toBe('hello');
    expect(message?.type === 'agent.message' && message.data.text).toBe('hi there');
    expect(message && eventOf(message)).toEqual({
      type: 'agent.message',
      text: 'hi there',
      messageId: null,
      raw: { kept: true },
    });
  });

  it('refuses an event whose data does not fit its type, with journal_corrupt', async () => {
    const { store, sessionId } = await storeWithSession();
    await store.appendEvents(sessionId, [{ type: 'agent.message', data: { text: 42 } }], { now: 2 });
    const error = await readJournal(store, sessionId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalCorruptError);
    expect((error as JournalCorruptError).code).toBe('journal_corrupt');
    expect((error as JournalCorruptError).details).toMatchObject({ cursor: 1, type: 'agent.message' });
  });

  it('refuses an event of an unknown type', () => {
    const read = () =>
      toJournalRecord({
        sessionId: 's',
        cursor: 1,
        type: 'no.such',
        data: {},
        executionId: null,
        createdAt: 1,
      });
    expect(read).toThrow(JournalCorruptError);
  });

  it('keeps fields a newer writer added', () => {
    const record = toJournalRecord({
      sessionId: 's',
      cursor: 1,
      type: 'work.settled',
      data: { executionId: 'e1', later: 'field' },
      executionId: 'e1',
      createdAt: 1,
    });
    expect(record.data).toEqual({ executionId: 'e1', later: 'field' });
  });
});
