import { describe, expect, it } from 'vitest';
import type { PermissionRuleRecord } from '../rule-storage.js';
import type { ContractContext } from './contract-context.js';

function rule(overrides: Partial<PermissionRuleRecord> = {}): Omit<PermissionRuleRecord, 'revokedAt'> {
  return {
    id: 'rule-1',
    scope: 'session',
    target: 'session-1',
    rule: 'Bash(npm test:*)',
    decision: 'approve',
    interactionId: 'interaction-1',
    createdBy: null,
    createdAt: 1_000,
    ...overrides,
  };
}

export function describePermissionRuleContract(context: ContractContext): void {
  describe('permission rules', () => {
    it('addPermissionRule: stores a rule once; the same id again returns the first', async () => {
      const store = context.store();
      const added = await store.addPermissionRule(rule());
      expect(added).toEqual({ ...rule(), revokedAt: null });
      expect(await store.addPermissionRule(rule({ rule: 'Bash(rm:*)', createdAt: 2_000 }))).toEqual(added);
      expect(await store.getPermissionRule('rule-1')).toEqual(added);
      expect(await store.getPermissionRule('missing')).toBeNull();
    });

    it('listPermissionRules: in creation order, filtered by scope and target; revoked ones only when asked', async () => {
      const store = context.store();
      await store.addPermissionRule(rule({ id: 'a' }));
      await store.addPermissionRule(
        rule({
          id: 'b',
          scope: 'role',
          target: 'acme/dev',
          decision: 'deny',
          interactionId: null,
          createdBy: 'alice',
        }),
      );
      await store.addPermissionRule(rule({ id: 'c', scope: 'organization', target: 'acme' }));
      await store.addPermissionRule(rule({ id: 'd', scope: 'session', target: 'session-2' }));
      expect((await store.listPermissionRules()).map((each) => each.id)).toEqual(['a', 'b', 'c', 'd']);
      const mine = await store.listPermissionRules({
        targets: [
          { scope: 'session', target: 'session-1' },
          { scope: 'role', target: 'acme/dev' },
          // The same target under another scope is another rule's.
          { scope: 'session', target: 'acme' },
        ],
      });
      expect(mine.map((each) => each.id)).toEqual(['a', 'b']);
      expect(mine[1]).toMatchObject({ decision: 'deny', interactionId: null, createdBy: 'alice' });
      expect(await store.listPermissionRules({ targets: [] })).toEqual([]);

      const revoked = await store.revokePermissionRule('a', 5_000);
      expect(revoked).toMatchObject({ id: 'a', revokedAt: 5_000 });
      // Revoking again keeps the first time.
      expect((await store.revokePermissionRule('a', 6_000))?.revokedAt).toBe(5_000);
      expect(await store.revokePermissionRule('missing', 6_000)).toBeNull();
      expect((await store.listPermissionRules()).map((each) => each.id)).toEqual(['b', 'c', 'd']);
      expect(
        (
          await store.listPermissionRules({
            includeRevoked: true,
            targets: [{ scope: 'session', target: 'session-1' }],
          })
        ).map((each) => [each.id, each.revokedAt]),
      ).toEqual([['a', 5_000]]);
    });
  });
}
