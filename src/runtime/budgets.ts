import { BudgetExceededError, InvalidInputError } from '../errors/index.js';
import { journalEntry } from '../journal/journal-event.js';
import { type ReachedLimit, reachedLimit, spendFilter } from '../store/budget-limits.js';
import { type BudgetRecord, type BudgetScope, budgetScopes } from '../store/org-storage.js';
import type { SessionRecord } from '../store/store.js';
import type { Access } from './access.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

export interface SetBudgetOptions extends ActorOptions {
  scope: BudgetScope;
  /** A session id, `<organization>/<role>`, or an organization id. */
  target: string;
  /** Null removes the limit. */
  limitUsd: number | null;
}

export type { ReachedLimit };

export interface BudgetView extends BudgetRecord {
  spentUsd: number;
  exceeded: boolean;
}

/** What has been spent, per organization and per role, with each one's limit where it has one. */
export interface SpendReport {
  organizations: Array<{ organization: string; spentUsd: number; limitUsd: number | null }>;
  roles: Array<{ organization: string; role: string; spentUsd: number; limitUsd: number | null }>;
}

/**
 * Cumulative spending limits per session, role and organization. Checked before an input is
 * journaled (here) and before it is dispatched (the worker's budget gate); raising a limit lets the
 * inputs that wait go on.
 */
export class Budgets {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
    /** Starts or wakes workers of sessions with inputs waiting. */
    private readonly resumeWaiting: () => Promise<void>,
  ) {}

  async set(options: SetBudgetOptions): Promise<BudgetView | null> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    if (!(budgetScopes as readonly string[]).includes(options.scope))
      throw new InvalidInputError(`scope must be one of ${budgetScopes.join(', ')}`, {
        scope: options.scope,
      });
    if (typeof options.target !== 'string' || options.target === '')
      throw new InvalidInputError('target must name a session, <organization>/<role> or an organization');
    if (options.scope === 'role' && !/^[^/]+\/[^/]+$/.test(options.target))
      throw new InvalidInputError('a role budget target is <organization>/<role>', {
        target: options.target,
      });
    if (options.limitUsd !== null && !(typeof options.limitUsd === 'number' && options.limitUsd >= 0))
      throw new InvalidInputError('limitUsd must be a number ≥ 0, or null to remove the limit');
    await this.context.store.setBudget({
      scope: options.scope,
      target: options.target,
      limitUsd: options.limitUsd,
      now: Date.now(),
    });
    await this.resumeWaiting();
    const budget = await this.context.store.getBudget(options.scope, options.target);
    return budget ? this.view(budget) : null;
  }

  /** Every limit with what has been spent against it. */
  async list(): Promise<BudgetView[]> {
    return Promise.all((await this.context.store.listBudgets()).map((budget) => this.view(budget)));
  }

  /** Spend of every organization and every role (deleted roles' spend counts for their organization). */
  async report(): Promise<SpendReport> {
    const { store } = this.context;
    const report: SpendReport = { organizations: [], roles: [] };
    for (const { id: organization } of await store.listOrganizations()) {
      const limit = await store.getBudget('organization', organization);
      report.organizations.push({
        organization,
        spentUsd: await store.spend({ organization }),
        limitUsd: limit?.limitUsd ?? null,
      });
      for (const { name: role } of await store.listRoles(organization)) {
        const roleLimit = await store.getBudget('role', `${organization}/${role}`);
        report.roles.push({
          organization,
          role,
          spentUsd: await store.spend({ organization, role }),
          limitUsd: roleLimit?.limitUsd ?? null,
        });
      }
    }
    return report;
  }

  /** Spend (USD) of a session, a role (`{ organization, role }`) or an organization. */
  async spend(
    filter: { sessionId: string } | { organization: string; role: string } | { organization: string },
  ): Promise<number> {
    return this.context.store.spend(filter);
  }

  /** The first limit the session has reached, or null. */
  async reached(session: SessionRecord): Promise<ReachedLimit | null> {
    return reachedLimit(this.context.store, session);
  }

  /**
   * Throws `budget_exceeded` when the session has reached a limit, and journals `budget.exceeded`
   * so that everyone following the session sees why it does not go on.
   */
  async require(session: SessionRecord): Promise<void> {
    const limit = await this.reached(session);
    if (!limit) return;
    await this.context.store.appendEvents(session.id, [journalEntry({ type: 'budget.exceeded', ...limit })], {
      now: Date.now(),
    });
    throw new BudgetExceededError(
      `the ${limit.scope} ${limit.target} has spent $${limit.spentUsd.toFixed(4)} of its $${limit.limitUsd} limit: raise it (agentd budgets set) to go on`,
      { ...limit },
    );
  }

  private async view(budget: BudgetRecord): Promise<BudgetView> {
    const spentUsd = await this.context.store.spend(spendFilter(budget.scope, budget.target));
    return { ...budget, spentUsd, exceeded: spentUsd >= budget.limitUsd };
  }
}
