import {
  type ExecutionRecord,
  liveExecutionStates,
  type SessionRecord,
  type SessionState,
  type Store,
} from '../store/store.js';
import { isHibernated, lastEventOf } from './hibernation.js';

/** What a session needs from a person, as an inbox groups it. */
export const attentionStates = [
  'needs_you',
  'working',
  'idle',
  'hibernated',
  'finished',
  'failed',
  'archived',
] as const;
export type Attention = (typeof attentionStates)[number];

export interface SessionOverview {
  session: SessionRecord;
  attention: Attention;
  /** The session's title, else its first prompt. */
  title: string | null;
  live: ExecutionRecord | null;
  /** The newest execution, live or ended. */
  lastExecution: ExecutionRecord | null;
  pendingInteractions: number;
  lastCursor: number;
  /** When the newest event was journaled (the session's creation when it has none). */
  lastActivityAt: number;
}

export interface OverviewOptions {
  state?: SessionState;
  /** @default 200 */
  limit?: number;
}

const busyStates = new Set<string>(['starting', 'running', 'stopping']);

/**
 * One row per session with what it needs now: pending interactions win, then a busy worker, an
 * idle one, a session hibernated after its idle timeout, how its last execution ended, and
 * archived sessions last. Read from the store after the
 * caller reconciled dead workers.
 */
export async function sessionOverview(
  store: Store,
  options: OverviewOptions = {},
): Promise<SessionOverview[]> {
  const sessions = await store.listSessions({
    ...(options.state ? { state: options.state } : {}),
    limit: options.limit ?? 200,
  });
  const pending = new Map<string, number>();
  for (const interaction of await store.listInteractions({ state: 'pending' }))
    pending.set(interaction.sessionId, (pending.get(interaction.sessionId) ?? 0) + 1);
  return Promise.all(
    sessions.map(async (session) => {
      const executions = await store.listExecutions(session.id);
      const live = executions.find((execution) => liveExecutionStates.includes(execution.state)) ?? null;
      const lastExecution = executions.reduce<ExecutionRecord | null>(
        (newest, execution) =>
          newest === null || execution.createdAt >= newest.createdAt ? execution : newest,
        null,
      );
      const lastCursor = await store.lastCursor(session.id);
      const lastEvent = await lastEventOf(store, session.id, lastCursor);
      const pendingInteractions = pending.get(session.id) ?? 0;
      const initialPrompt = session.config.initialPrompt;
      return {
        session,
        attention:
          pendingInteractions === 0 && isHibernated(session, live, lastEvent)
            ? 'hibernated'
            : attentionOf(session, live, lastExecution, pendingInteractions),
        title:
          session.title ??
          (typeof initialPrompt === 'string' ? initialPrompt : await firstInputText(store, session.id)),
        live,
        lastExecution,
        pendingInteractions,
        lastCursor,
        lastActivityAt: lastEvent?.createdAt ?? session.createdAt,
      };
    }),
  );
}

function attentionOf(
  session: SessionRecord,
  live: ExecutionRecord | null,
  lastExecution: ExecutionRecord | null,
  pendingInteractions: number,
): Attention {
  if (session.state === 'archived') return 'archived';
  if (pendingInteractions > 0) return 'needs_you';
  if (live) return busyStates.has(live.state) ? 'working' : 'idle';
  if (lastExecution === null) return 'idle';
  return lastExecution.state === 'failed' ? 'failed' : 'finished';
}

async function firstInputText(store: Store, sessionId: string): Promise<string | null> {
  const [first] = await store.listInputs(sessionId);
  return first?.text ?? null;
}
