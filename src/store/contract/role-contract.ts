import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { RoleRecord } from '../org-storage.js';
import type { ContractContext } from './contract-context.js';

export function describeRoleContract(context: ContractContext): void {
  describe('roles', () => {
    async function organization(id = 'acme') {
      await context.store().ensureOrganization({ id, now: 1 });
    }

    it('createRole: writes version 1 with defaults for what is not given', async () => {
      const store = context.store();
      await organization();
      const role = await store.createRole({ organization: 'acme', name: 'reviewer', now: 1_000 });
      expect(role).toEqual({
        organization: 'acme',
        name: 'reviewer',
        version: 1,
        provider: 'env',
        backend: 'claude',
        model: null,
        systemPrompt: null,
        tools: null,
        permissionMode: null,
        skills: [],
        userSkills: false,
        label: 'reviewer',
        ordering: 0,
        turnBudgetUsd: null,
        warmPool: null,
        deleted: false,
        createdAt: 1_000,
      });
      expect(await store.getRole('acme', 'reviewer')).toEqual(role);
      expect(await store.getRole('acme', 'reviewer', 1)).toEqual(role);
    });

    it('createRole: stores every field as given', async () => {
      const store = context.store();
      await organization();
      const given = {
        provider: 'openrouter',
        backend: 'codex' as const,
        model: 'z-ai/glm-4.7',
        systemPrompt: 'Review carefully.\nQuote "lines".',
        tools: ['Read', 'Grep'],
        permissionMode: 'acceptEdits' as const,
        skills: [`sha256:${'a'.repeat(64)}`],
        userSkills: true,
        label: 'Code reviewer',
        ordering: 3,
        turnBudgetUsd: 0.5,
        warmPool: 2,
      };
      const role = await store.createRole({ organization: 'acme', name: 'reviewer', ...given, now: 1 });
      expect(role).toEqual({
        organization: 'acme',
        name: 'reviewer',
        version: 1,
        ...given,
        deleted: false,
        createdAt: 1,
      });
      expect(await store.getRole('acme', 'reviewer')).toEqual(role);
    });

    it('createRole: a missing organization is NotFoundError; a live role of that name is ConflictError', async () => {
      const store = context.store();
      await expect(store.createRole({ organization: 'nowhere', name: 'x', now: 1 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await organization();
      await store.createRole({ organization: 'acme', name: 'reviewer', model: 'first', now: 1 });
      await expect(
        store.createRole({ organization: 'acme', name: 'reviewer', model: 'second', now: 2 }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.roleHistory('acme', 'reviewer')).toHaveLength(1);
      // The same name in another organization is another role.
      await organization('other');
      expect((await store.createRole({ organization: 'other', name: 'reviewer', now: 3 })).version).toBe(1);
    });

    it('updateRole: writes the next version with the patch over the current one, keeping history', async () => {
      const store = context.store();
      await organization();
      const first = await store.createRole({
        organization: 'acme',
        name: 'reviewer',
        model: 'm1',
        tools: ['Read'],
        now: 1,
      });
      const second = await store.updateRole({
        organization: 'acme',
        name: 'reviewer',
        patch: { systemPrompt: 'Be brief.', tools: null },
        now: 2,
      });
      expect(second).toEqual({ ...first, version: 2, systemPrompt: 'Be brief.', tools: null, createdAt: 2 });
      const third = await store.updateRole({
        organization: 'acme',
        name: 'reviewer',
        patch: { label: 'Reviewer', model: undefined },
        expectVersion: 2,
        now: 3,
      });
      expect(third).toEqual({ ...second, version: 3, label: 'Reviewer', createdAt: 3 });
      expect(await store.getRole('acme', 'reviewer')).toEqual(third);
      expect(await store.roleHistory('acme', 'reviewer')).toEqual([first, second, third]);
      expect(await store.getRole('acme', 'reviewer', 1)).toEqual(first);
      expect(await store.getRole('acme', 'reviewer', 9)).toBeNull();
    });

    it('updateRole: a stale expectVersion is ConflictError and writes nothing', async () => {
      const store = context.store();
      await organization();
      await store.createRole({ organization: 'acme', name: 'reviewer', now: 1 });
      await store.updateRole({ organization: 'acme', name: 'reviewer', patch: { ordering: 1 }, now: 2 });
      await expect(
        store.updateRole({
          organization: 'acme',
          name: 'reviewer',
          patch: { ordering: 5 },
          expectVersion: 1,
          now: 3,
        }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.getRole('acme', 'reviewer')).toMatchObject({ version: 2, ordering: 1 });
    });

    it('updateRole: racing updates get distinct versions, each one higher', async () => {
      const store = context.store();
      await organization();
      await store.createRole({ organization: 'acme', name: 'reviewer', now: 1 });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          store.updateRole({
            organization: 'acme',
            name: 'reviewer',
            patch: { ordering: index + 1 },
            now: 10 + index,
          }),
        ),
      );
      expect(results.map((role) => role.version).sort((left, right) => left - right)).toEqual([
        2, 3, 4, 5, 6, 7,
      ]);
      expect((await store.roleHistory('acme', 'reviewer')).map((role) => role.version)).toEqual([
        1, 2, 3, 4, 5, 6, 7,
      ]);
      expect((await store.getRole('acme', 'reviewer'))?.version).toBe(7);
    });

    it('updateRole and deleteRole: a missing or deleted role is NotFoundError', async () => {
      const store = context.store();
      await organization();
      const missing = { organization: 'acme', name: 'nobody', now: 1 };
      await expect(store.updateRole({ ...missing, patch: {} })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.deleteRole(missing)).rejects.toBeInstanceOf(NotFoundError);
      await store.createRole({ organization: 'acme', name: 'gone', now: 1 });
      await store.deleteRole({ organization: 'acme', name: 'gone', now: 2 });
      await expect(
        store.updateRole({ organization: 'acme', name: 'gone', patch: {}, now: 3 }),
      ).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.deleteRole({ organization: 'acme', name: 'gone', now: 3 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect(await store.roleHistory('acme', 'gone')).toHaveLength(2);
    });

    it('deleteRole: writes a deleted version; the role is not listed, its versions stay readable', async () => {
      const store = context.store();
      await organization();
      const first = await store.createRole({ organization: 'acme', name: 'reviewer', model: 'm1', now: 1 });
      const deleted = await store.deleteRole({ organization: 'acme', name: 'reviewer', now: 2 });
      expect(deleted).toEqual({ ...first, version: 2, deleted: true, createdAt: 2 });
      expect(await store.getRole('acme', 'reviewer')).toBeNull();
      expect(await store.listRoles('acme')).toEqual([]);
      expect(await store.getRole('acme', 'reviewer', 1)).toEqual(first);
      expect(await store.getRole('acme', 'reviewer', 2)).toEqual(deleted);
      // Made again, it continues the same history with fresh defaults.
      const again = await store.createRole({ organization: 'acme', name: 'reviewer', now: 3 });
      expect(again).toMatchObject({ version: 3, model: null, deleted: false });
      expect((await store.roleHistory('acme', 'reviewer')).map((role) => role.version)).toEqual([1, 2, 3]);
      expect(await store.listRoles('acme')).toEqual([again]);
    });

    it('listRoles: current versions of live roles, by ordering then name, per organization', async () => {
      const store = context.store();
      await organization();
      await organization('other');
      await store.createRole({ organization: 'acme', name: 'zeta', ordering: 1, now: 1 });
      await store.createRole({ organization: 'acme', name: 'beta', ordering: 2, now: 1 });
      await store.createRole({ organization: 'acme', name: 'alpha', ordering: 2, now: 1 });
      await store.createRole({ organization: 'acme', name: 'gone', now: 1 });
      await store.createRole({ organization: 'other', name: 'elsewhere', now: 1 });
      await store.updateRole({ organization: 'acme', name: 'zeta', patch: { label: 'Z' }, now: 2 });
      await store.deleteRole({ organization: 'acme', name: 'gone', now: 2 });
      const listed = await store.listRoles('acme');
      expect(listed.map((role: RoleRecord) => [role.name, role.version])).toEqual([
        ['zeta', 2],
        ['alpha', 1],
        ['beta', 1],
      ]);
      expect(await store.listRoles('nowhere')).toEqual([]);
    });

    it('roleHistory: empty for a role that never existed', async () => {
      expect(await context.store().roleHistory('acme', 'nobody')).toEqual([]);
      expect(await context.store().getRole('acme', 'nobody')).toBeNull();
      expect(await context.store().getRole('acme', 'nobody', 1)).toBeNull();
    });
  });
}
