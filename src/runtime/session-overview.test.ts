import { describe, expect, it } from 'vitest';
import { journalEntry } from '../journal/journal-event.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { sessionOverview } from './session-overview.js';

async function storeWith(ids: string[]) {
  const store = await SqliteStore.open({ path: ':memory:' });
  for (const [index, id] of ids.entries())
    await store.createSession({
      id,
      provider: 'anthropic',
      cwd: '/',
      config: id === 'prompted' ? { initialPrompt: 'first prompt' } : {},
      now: index + 1,
    });
  return store;
}

describe('sessionOverview', () => {
  it('attention: pending interactions win, then a busy or idle worker, then how the last execution ended', async () => {
    const store = await storeWith(['asking', 'busy', 'waiting', 'done', 'broken', 'fresh', 'old']);
    const execution = async (sessionId: string, state: 'running' | 'idle' | 'stopped' | 'failed') => {
      const created = await store.createExecution({ id: `${sessionId}-e`, sessionId, now: 10 });
      return store.updateExecution(created.id, { state, now: 11 });
    };
    await execution('asking', 'running');
    await store.createInteraction({
      id: 'i1',
      sessionId: 'asking',
      executionId: 'asking-e',
      kind: 'approval',
      toolName: 'Bash',
      toolUseId: 't1',
      request: { input: { command: 'touch x' } },
      createdAt: 12,
    });
    await execution('busy', 'running');
    await execution('waiting', 'idle');
    await execution('done', 'stopped');
    await execution('broken', 'failed');
    await execution('old', 'stopped');
    await store.updateSession('old', { state: 'archived', now: 13 });

    const rows = await sessionOverview(store);
    const attention = Object.fromEntries(rows.map((row) => [row.session.id, row.attention]));
    expect(attention).toEqual({
      asking: 'needs_you',
      busy: 'working',
      waiting: 'idle',
      done: 'finished',
      broken: 'failed',
      fresh: 'idle',
      old: 'archived',
    });
    expect(rows.find((row) => row.session.id === 'asking')?.pendingInteractions).toBe(1);
    await store.close();
  });

  it('title is the first prompt; last activity is the newest event', async () => {
    const store = await storeWith(['prompted', 'plain']);
    await store.appendEvents(
      'plain',
      [journalEntry({ type: 'input.accepted', inputId: 'i', messageId: 'm', text: 'hi' })],
      {
        now: 500,
      },
    );
    const rows = await sessionOverview(store);
    const prompted = rows.find((row) => row.session.id === 'prompted')!;
    const plain = rows.find((row) => row.session.id === 'plain')!;
    expect([prompted.title, prompted.lastActivityAt, prompted.lastCursor]).toEqual(['first prompt', 1, 0]);
    expect([plain.title, plain.lastActivityAt, plain.lastCursor]).toEqual([null, 500, 1]);
    await store.close();
  });
});
