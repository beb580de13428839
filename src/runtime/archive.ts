import { journalEntry } from '../journal/journal-event.js';
import type { SessionRecord, Store } from '../store/store.js';

/**
 * Archives a session: it takes no new input and is never resumed, but stays readable. A live worker
 * is not killed: it dispatches what was accepted before (accepted work keeps the role it was
 * accepted under) and ends when idle. Journals `session.archived` once.
 */
export async function archiveSession(
  store: Store,
  session: SessionRecord,
  reason: 'role_changed' | 'new' | 'archived',
): Promise<SessionRecord> {
  if (session.state === 'archived') return session;
  const archived = await store.updateSession(session.id, { state: 'archived', now: Date.now() });
  await store.appendEvents(
    session.id,
    [journalEntry({ type: 'session.archived', reason, roleVersion: session.roleVersion })],
    { now: Date.now() },
  );
  return archived;
}
