import { idleTimeoutReason } from '../journal/journal-event.js';
import type { EventRecord, ExecutionRecord, SessionRecord, Store } from '../store/store.js';

/**
 * Whether a session is hibernated: active, no live worker, and the newest thing in its journal is
 * its last worker leaving after the idle timeout. Nothing of it runs; the next input starts a
 * worker that resumes the native session from the stored transcript (decision 0121).
 */
export function isHibernated(
  session: SessionRecord,
  live: ExecutionRecord | null,
  lastEvent: EventRecord | undefined,
): boolean {
  if (session.state !== 'active' || live !== null || lastEvent?.type !== 'execution.stopped') return false;
  return (lastEvent.data as { reason?: unknown } | null)?.reason === idleTimeoutReason;
}

/** The session's newest journal event, if it has any. */
export async function lastEventOf(store: Store, sessionId: string, lastCursor: number) {
  if (lastCursor <= 0) return undefined;
  const [last] = await store.readEvents(sessionId, { after: lastCursor - 1, limit: 1 });
  return last;
}
