import type { BudgetScope } from './org-storage.js';
import type { SessionRecord, Store } from './store.js';

/** A limit that is reached: what it limits, the limit and what has been spent against it. */
export interface ReachedLimit {
  scope: BudgetScope;
  target: string;
  limitUsd: number;
  spentUsd: number;
}

/** What a limit's target spends against: a session, a role (`<organization>/<role>`), an organization. */
export function spendFilter(scope: BudgetScope, target: string) {
  if (scope === 'session') return { sessionId: target };
  if (scope === 'organization') return { organization: target };
  const slash = target.indexOf('/');
  return { organization: target.slice(0, slash), role: target.slice(slash + 1) };
}

/** The limits that apply to a session: its own, its role's, its organization's. */
export function limitTargets(session: SessionRecord): Array<{ scope: BudgetScope; target: string }> {
  const targets: Array<{ scope: BudgetScope; target: string }> = [{ scope: 'session', target: session.id }];
  if (session.organization !== null) {
    if (session.role !== null)
      targets.push({ scope: 'role', target: `${session.organization}/${session.role}` });
    targets.push({ scope: 'organization', target: session.organization });
  }
  return targets;
}

/**
 * The first limit the session has reached, or null. Read by the runtime before it journals an
 * input and by the worker before it dispatches one, so both see the same answer.
 */
export async function reachedLimit(store: Store, session: SessionRecord): Promise<ReachedLimit | null> {
  for (const { scope, target } of limitTargets(session)) {
    const budget = await store.getBudget(scope, target);
    if (!budget) continue;
    const spentUsd = await store.spend(spendFilter(scope, target));
    if (spentUsd >= budget.limitUsd) return { scope, target, limitUsd: budget.limitUsd, spentUsd };
  }
  return null;
}
