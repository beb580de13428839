import * as v from 'valibot';
import { JournalCorruptError } from '../errors/index.js';
import type { EventRecord, ReadEventsOptions, Store } from '../store/store.js';
import { firstIssue } from '../util/first-issue.js';
import type { JournalRecord } from './journal-event.js';
import { isJournalEventType, journalDataSchemas } from './journal-schema.js';

/**
 * Checks a stored event against its type's schema and returns it typed. Throws
 * `JournalCorruptError` (code `journal_corrupt`) for an unknown type or data that does not fit.
 */
export function toJournalRecord(event: EventRecord): JournalRecord {
  const where = { sessionId: event.sessionId, cursor: event.cursor, type: event.type };
  if (!isJournalEventType(event.type))
    throw new JournalCorruptError(
      `event ${event.cursor} of session ${event.sessionId} has an unknown type`,
      where,
    );
  const parsed = v.safeParse(journalDataSchemas[event.type], event.data);
  if (!parsed.success)
    throw new JournalCorruptError(
      `event ${event.cursor} (${event.type}) of session ${event.sessionId} does not fit its type: ${firstIssue(parsed.issues)}`,
      where,
    );
  // The schema of `event.type` produced `parsed.output`: the pair is one member of the union.
  return { ...event, data: parsed.output } as JournalRecord;
}

/**
 * The session's events with cursor > `after` (default 0), oldest first, at most `limit` (default
 * 1000), of `types` only when given, typed.
 */
export async function readJournal(
  store: Store,
  sessionId: string,
  options: ReadEventsOptions = {},
): Promise<JournalRecord[]> {
  return (await store.readEvents(sessionId, options)).map(toJournalRecord);
}
