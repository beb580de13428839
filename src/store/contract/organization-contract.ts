import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../errors/agentd-error.js';
import type { ContractContext } from './contract-context.js';

export function describeOrganizationContract(context: ContractContext): void {
  describe('organizations', () => {
    it('ensureOrganization: creates once and returns the existing one after', async () => {
      const store = context.store();
      const created = await store.ensureOrganization({ id: 'acme', now: 1_000 });
      expect(created).toEqual({ id: 'acme', defaultRole: null, createdAt: 1_000, updatedAt: 1_000 });
      expect(await store.ensureOrganization({ id: 'acme', now: 2_000 })).toEqual(created);
      expect(await store.getOrganization('acme')).toEqual(created);
      expect(await store.getOrganization('nowhere')).toBeNull();
    });

    it('listOrganizations: in creation order', async () => {
      const store = context.store();
      await store.ensureOrganization({ id: 'zeta', now: 1 });
      await store.ensureOrganization({ id: 'alpha', now: 1 });
      await store.ensureOrganization({ id: 'zeta', now: 2 });
      expect((await store.listOrganizations()).map((organization) => organization.id)).toEqual([
        'zeta',
        'alpha',
      ]);
    });

    it('the first role becomes the default; setDefaultRole moves it to another live role', async () => {
      const store = context.store();
      await store.ensureOrganization({ id: 'acme', now: 1 });
      await store.createRole({ organization: 'acme', name: 'assistant', now: 2 });
      await store.createRole({ organization: 'acme', name: 'reviewer', now: 3 });
      expect((await store.getOrganization('acme'))?.defaultRole).toBe('assistant');
      const moved = await store.setDefaultRole({ organization: 'acme', role: 'reviewer', now: 4 });
      expect(moved).toEqual({ id: 'acme', defaultRole: 'reviewer', createdAt: 1, updatedAt: 4 });
      expect(await store.getOrganization('acme')).toEqual(moved);
    });

    it('setDefaultRole: a missing organization, or a missing or deleted role, is NotFoundError', async () => {
      const store = context.store();
      await store.ensureOrganization({ id: 'acme', now: 1 });
      await store.createRole({ organization: 'acme', name: 'assistant', now: 2 });
      await store.createRole({ organization: 'acme', name: 'gone', now: 2 });
      await store.deleteRole({ organization: 'acme', name: 'gone', now: 3 });
      for (const attempt of [
        { organization: 'nowhere', role: 'assistant' },
        { organization: 'acme', role: 'nobody' },
        { organization: 'acme', role: 'gone' },
      ]) {
        await expect(store.setDefaultRole({ ...attempt, now: 4 })).rejects.toBeInstanceOf(NotFoundError);
      }
      expect((await store.getOrganization('acme'))?.defaultRole).toBe('assistant');
    });
  });
}
