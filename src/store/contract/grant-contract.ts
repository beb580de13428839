import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors/agentd-error.js';
import type { ContractContext } from './contract-context.js';

export function describeGrantContract(context: ContractContext): void {
  describe('principals and grants', () => {
    const digest = (char: string) => char.repeat(64);

    it('putPrincipal: creates, then updates the token digest keeping createdAt', async () => {
      const store = context.store();
      const created = await store.putPrincipal({ id: 'alice', tokenDigest: digest('a'), now: 1_000 });
      expect(created).toEqual({ id: 'alice', tokenDigest: digest('a'), createdAt: 1_000 });
      expect(await store.getPrincipalByToken(digest('a'))).toEqual(created);
      const rotated = await store.putPrincipal({ id: 'alice', tokenDigest: digest('b'), now: 2_000 });
      expect(rotated).toEqual({ id: 'alice', tokenDigest: digest('b'), createdAt: 1_000 });
      expect(await store.getPrincipalByToken(digest('a'))).toBeNull();
      expect(await store.getPrincipalByToken(digest('b'))).toEqual(rotated);
      expect(await store.getPrincipal('alice')).toEqual(rotated);
      expect(await store.getPrincipal('nobody')).toBeNull();
    });

    it('putPrincipal: a digest another principal has is ConflictError', async () => {
      const store = context.store();
      await store.putPrincipal({ id: 'alice', tokenDigest: digest('a'), now: 1 });
      await expect(
        store.putPrincipal({ id: 'bob', tokenDigest: digest('a'), now: 2 }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.getPrincipal('bob')).toBeNull();
      // Principals without a token do not collide.
      await store.putPrincipal({ id: 'carol', tokenDigest: null, now: 3 });
      await store.putPrincipal({ id: 'dave', tokenDigest: null, now: 4 });
      expect((await store.listPrincipals()).map((principal) => principal.id)).toEqual([
        'alice',
        'carol',
        'dave',
      ]);
    });

    it('addGrant: creates the principal if needed and is idempotent on principal, action and resource', async () => {
      const store = context.store();
      const grant = await store.addGrant({
        id: 'g1',
        principal: 'bot',
        action: 'agent.trigger',
        resource: 'project:acme/web',
        now: 1_000,
      });
      expect(grant).toEqual({
        id: 'g1',
        principal: 'bot',
        action: 'agent.trigger',
        resource: 'project:acme/web',
        createdAt: 1_000,
      });
      expect(await store.getPrincipal('bot')).toEqual({ id: 'bot', tokenDigest: null, createdAt: 1_000 });
      const again = await store.addGrant({
        id: 'g2',
        principal: 'bot',
        action: 'agent.trigger',
        resource: 'project:acme/web',
        now: 2_000,
      });
      expect(again).toEqual(grant);
      expect(await store.listGrants()).toEqual([grant]);
    });

    it('addGrant: keeps an existing principal’s token', async () => {
      const store = context.store();
      const alice = await store.putPrincipal({ id: 'alice', tokenDigest: digest('a'), now: 1 });
      await store.addGrant({ id: 'g1', principal: 'alice', action: 'admin', resource: '*', now: 2 });
      expect(await store.getPrincipal('alice')).toEqual(alice);
    });

    it('addGrant: an id taken by another grant is ConflictError', async () => {
      const store = context.store();
      await store.addGrant({ id: 'g1', principal: 'bot', action: 'admin', resource: '*', now: 1 });
      await expect(
        store.addGrant({
          id: 'g1',
          principal: 'bot',
          action: 'role.trigger',
          resource: 'role:acme/*',
          now: 2,
        }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.listGrants()).toHaveLength(1);
    });

    it('listGrants: in creation order, filtered by principal; removeGrant tells whether there was one', async () => {
      const store = context.store();
      await store.addGrant({
        id: 'g1',
        principal: 'bot',
        action: 'agent.trigger',
        resource: 'project:acme/*',
        now: 1,
      });
      await store.addGrant({ id: 'g2', principal: 'alice', action: 'admin', resource: '*', now: 2 });
      await store.addGrant({
        id: 'g3',
        principal: 'bot',
        action: 'role.trigger',
        resource: 'role:acme/reviewer',
        now: 3,
      });
      expect((await store.listGrants()).map((grant) => grant.id)).toEqual(['g1', 'g2', 'g3']);
      expect((await store.listGrants({ principal: 'bot' })).map((grant) => grant.id)).toEqual(['g1', 'g3']);
      expect(await store.removeGrant('g1')).toBe(true);
      expect(await store.removeGrant('g1')).toBe(false);
      expect((await store.listGrants({ principal: 'bot' })).map((grant) => grant.id)).toEqual(['g3']);
      // Removed, the same grant may be added again.
      const readded = await store.addGrant({
        id: 'g4',
        principal: 'bot',
        action: 'agent.trigger',
        resource: 'project:acme/*',
        now: 4,
      });
      expect(readded.id).toBe('g4');
    });
  });
}
