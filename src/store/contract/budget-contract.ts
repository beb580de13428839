import { describe, expect, it } from 'vitest';
import { type ContractContext, createTestSession } from './contract-context.js';

function turn(costUsd: number) {
  return { type: 'agent.turn.completed', data: { costUsd, numTurns: 1 } };
}

export function describeBudgetContract(context: ContractContext): void {
  describe('budgets', () => {
    it('setBudget: sets, replaces and with null removes a limit', async () => {
      const store = context.store();
      expect(await store.getBudget('role', 'acme/reviewer')).toBeNull();
      await store.setBudget({ scope: 'role', target: 'acme/reviewer', limitUsd: 5, now: 1_000 });
      await store.setBudget({ scope: 'organization', target: 'acme', limitUsd: 100, now: 1_000 });
      await store.setBudget({ scope: 'role', target: 'acme/reviewer', limitUsd: 7.5, now: 2_000 });
      expect(await store.getBudget('role', 'acme/reviewer')).toEqual({
        scope: 'role',
        target: 'acme/reviewer',
        limitUsd: 7.5,
        updatedAt: 2_000,
      });
      // The same target under another scope is another budget.
      expect(await store.getBudget('session', 'acme/reviewer')).toBeNull();
      expect(await store.listBudgets()).toHaveLength(2);
      await store.setBudget({ scope: 'role', target: 'acme/reviewer', limitUsd: null, now: 3_000 });
      expect(await store.getBudget('role', 'acme/reviewer')).toBeNull();
      expect(await store.listBudgets()).toEqual([
        { scope: 'organization', target: 'acme', limitUsd: 100, updatedAt: 1_000 },
      ]);
      // Removing what is not there is a no-op.
      await store.setBudget({ scope: 'session', target: 'none', limitUsd: null, now: 4_000 });
      expect(await store.listBudgets()).toHaveLength(1);
    });

    it('spend: sums the sessions’ turn costs per session, role (any version) and organization', async () => {
      const store = context.store();
      const first = await createTestSession(store, {
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 1,
      });
      const second = await createTestSession(store, {
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 2,
      });
      const writer = await createTestSession(store, { organization: 'acme', role: 'writer', roleVersion: 1 });
      const elsewhere = await createTestSession(store, {
        organization: 'other',
        role: 'reviewer',
        roleVersion: 1,
      });
      const loose = await createTestSession(store, { organization: null, role: null });
      await store.appendEvents(first.id, [turn(0.25), { type: 'agent.message', data: { costUsd: 9 } }], {
        now: 1,
      });
      await store.appendEvents(first.id, [turn(0.5)], { now: 2 });
      await store.appendEvents(second.id, [turn(1)], { now: 3 });
      await store.appendEvents(writer.id, [turn(2)], { now: 4 });
      await store.appendEvents(elsewhere.id, [turn(4)], { now: 5 });
      await store.appendEvents(loose.id, [turn(8)], { now: 6 });

      expect(await store.spend({ sessionId: first.id })).toBeCloseTo(0.75);
      expect(await store.spend({ organization: 'acme', role: 'reviewer' })).toBeCloseTo(1.75);
      expect(await store.spend({ organization: 'acme', role: 'writer' })).toBeCloseTo(2);
      expect(await store.spend({ organization: 'acme' })).toBeCloseTo(3.75);
      expect(await store.spend({ organization: 'other' })).toBeCloseTo(4);
      expect(await store.spend({ sessionId: loose.id })).toBeCloseTo(8);
    });

    it('spend: nothing spent is 0, for unknown targets too', async () => {
      const store = context.store();
      const session = await createTestSession(store, { organization: 'acme', role: 'reviewer' });
      expect(await store.spend({ sessionId: session.id })).toBe(0);
      expect(await store.spend({ sessionId: 'no-such-session' })).toBe(0);
      expect(await store.spend({ organization: 'acme', role: 'nobody' })).toBe(0);
      expect(await store.spend({ organization: 'nowhere' })).toBe(0);
    });
  });
}
