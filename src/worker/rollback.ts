import { setTimeout as sleep } from 'node:timers/promises';
import type { RewindPoint } from '../backends/agent-backend.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store, TranscriptKey } from '../store/store.js';

/**
 * Where a rolled-back turn is cut off in the native transcript: the entry its prompt hangs from.
 * The prompt's entry has the input's id as its uuid (agentd gives it to the SDK); the SDK mirrors
 * it within moments, so it is waited for. Null when it never reached the transcript: then the
 * agent has nothing of the turn to forget.
 */
export async function rewindPointOf(options: {
  store: Store;
  key: TranscriptKey;
  inputId: string;
  /** @default 5000 */
  timeoutMs?: number;
}): Promise<RewindPoint | null> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  for (;;) {
    const entries = (await options.store.loadTranscript(options.key)) ?? [];
    const prompt = entries.find((entry) => entry.type === 'user' && entry.uuid === options.inputId);
    if (prompt) {
      const before = typeof prompt.parentUuid === 'string' ? prompt.parentUuid : null;
      return { inputId: options.inputId, before };
    }
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
}

/**
 * A rollback asked for (`control.interrupt` with `rollback`) that no worker finished: the one that
 * ran the turn died first. The turn is still the last one (no input was delivered after it, it
 * did not complete), so the next execution resumes from before it.
 */
export async function unfinishedRollback(
  store: Store,
  sessionId: string,
): Promise<{ inputId: string; byInputId: string | null; fromCursor: number } | null> {
  let pending: { inputId: string; byInputId: string | null; fromCursor: number } | null = null;
  const completed = new Set<string>();
  let turn: { inputId: string; cursor: number } | null = null;
  for (const record of await readAll(store, sessionId)) {
    if (record.type === 'input.delivered') {
      if (pending && record.data.inputId !== pending.inputId) pending = null;
      turn = { inputId: record.data.inputId, cursor: record.cursor };
    } else if (record.type === 'agent.turn.completed' && !record.data.isError) {
      for (const inputId of record.data.inputIds) completed.add(inputId);
      if (pending && completed.has(pending.inputId)) pending = null;
    } else if (record.type === 'control.interrupt' && record.data.rollback && record.data.inputId) {
      const inputId = record.data.inputId;
      if (completed.has(inputId)) continue;
      pending = {
        inputId,
        byInputId: record.data.byInputId ?? null,
        fromCursor: turn?.inputId === inputId ? turn.cursor : record.cursor,
      };
    } else if (record.type === 'turn.interrupted' && record.data.inputId === pending?.inputId) pending = null;
  }
  return pending;
}

/** The only events that say whether a rollback is unfinished: a turn's few, not its stream of output. */
const rollbackTypes = ['input.delivered', 'agent.turn.completed', 'control.interrupt', 'turn.interrupted'];

async function readAll(store: Store, sessionId: string) {
  const all = [];
  for (;;) {
    const page = await readJournal(store, sessionId, {
      after: all.at(-1)?.cursor ?? 0,
      limit: 1000,
      types: rollbackTypes,
    });
    all.push(...page);
    if (page.length < 1000) return all;
  }
}
