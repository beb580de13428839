import type { JournalRecord } from '../journal/journal-event.js';

/** Claude's current goal, as its journaled lifecycle tells it (claude keeps the goal itself). */
export interface GoalView {
  condition: string;
  /** `met`: the last goal's turn ended on its own, and claude cleared it. */
  state: 'active' | 'met';
  setAt: number;
  /** Stop-hook evaluations that found it not yet met. */
  evaluations: number;
  lastReason: string | null;
  metAt: number | null;
}

/** Folds the session's `goal.*` records: the goal set last, unless it was cleared since. */
export function currentGoal(records: Iterable<JournalRecord>): GoalView | null {
  let goal: GoalView | null = null;
  for (const record of records) {
    if (record.type === 'goal.set')
      goal = {
        condition: record.data.condition,
        state: 'active',
        setAt: record.createdAt,
        evaluations: 0,
        lastReason: null,
        metAt: null,
      };
    else if (record.type === 'goal.evaluated' && goal?.state === 'active') {
      goal.evaluations += 1;
      goal.lastReason = record.data.reason;
    } else if (record.type === 'goal.met' && goal?.state === 'active') {
      goal.state = 'met';
      goal.metAt = record.createdAt;
    } else if (record.type === 'goal.cleared') goal = null;
  }
  return goal;
}
