import type { JournalRecord } from '../journal/journal-event.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store } from '../store/store.js';
import { type SeedRunView, seedRunView } from './seed-view.js';

/** Every record of a session's journal, oldest first. */
export async function readWholeJournal(store: Store, sessionId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for (;;) {
    const page = await readJournal(store, sessionId, { after: records.at(-1)?.cursor ?? 0, limit: 1000 });
    records.push(...page);
    if (page.length < 1000) return records;
  }
}

/** The seed run of a session, from its journal; null when the session runs no seed. */
export async function readSeedRun(store: Store, sessionId: string): Promise<SeedRunView | null> {
  return seedRunView(sessionId, await readWholeJournal(store, sessionId));
}

/** The message id of an iteration's input: a crash never makes agentd send an iteration twice. */
export function iterationMessageId(runId: string, iteration: number): string {
  return `seed:${runId}:iteration:${iteration}`;
}
