/**
 * SQLite's one write lock held by another process for longer than the API's 5 s busy timeout, in
 * the middle of a turn: the worker's writes wait for it (30 s) instead of failing the execution,
 * and the turn ends with nothing lost or repeated. Real worker, real `claude`, the scripted model.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkGuarantees,
  createHarness,
  type Harness,
  isEvent,
  readJournal,
  readUntil,
  waitFor,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe('SQLite write lock', () => {
  it('a worker whose writes wait 7 s for the lock mid-turn finishes the turn', {
    timeout: 120_000,
  }, async () => {
    const slow = 'This reply streams slowly, a few characters at a time, while the lock is held elsewhere.';
    harness = await createHarness({ script: [{ text: slow, chunkDelayMs: 100, chunkSize: 4 }] });
    const h = harness;
    const { session } = await h.runtime.createSession({ prompt: 'hold on', cwd: h.cwd, messageId: 'l-1' });
    await waitFor(async () => (await readJournal(h.runtime, session.id)).some(isEvent('input.delivered')), {
      what: 'the delivery',
      timeoutMs: 60_000,
    });
    // Another process's transaction holds the write lock for 7 s while the reply streams.
    const other = new Database(join(h.dataDir, 'agentd.db'));
    other.exec('BEGIN IMMEDIATE');
    const held = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 7000));
    other.exec('COMMIT');
    other.close();
    expect(Date.now() - held).toBeGreaterThanOrEqual(7000);

    const journal = await readUntil(h.runtime, session.id, isEvent('work.settled'), { timeoutMs: 60_000 });
    const [execution] = await h.runtime.listExecutions(session.id);
    expect(execution?.state).toBe('idle');
    expect(journal.some(isEvent('execution.failed'))).toBe(false);
    expect(journal.filter(isEvent('agent.turn.completed'))).toHaveLength(1);
    await checkGuarantees(h.runtime, session.id, { acknowledged: ['l-1'], model: h.model });
  });
});
