import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import { type ContractContext, createTestSession, uniqueId } from './contract-context.js';

export function describeSessionContract(context: ContractContext): void {
  describe('sessions', () => {
    it('createSession: stores an active session with nulls for omitted fields', async () => {
      const store = context.store();
      const id = uniqueId('session');
      const result = await store.createSession({
        id,
        provider: 'claude',
        cwd: '/tmp/project',
        config: { nested: { list: [1, 'two', null] } },
        now: 5_000,
      });
      expect(result.created).toBe(true);
      expect(result.session).toEqual({
        id,
        state: 'active',
        provider: 'claude',
        organization: null,
        role: null,
        roleVersion: null,
        model: null,
        cwd: '/tmp/project',
        costUsd: 0,
        config: { nested: { list: [1, 'two', null] } },
        launchId: null,
        nativeSessionId: null,
        title: null,
        createdAt: 5_000,
        updatedAt: 5_000,
      });
      expect(await store.getSession(id)).toEqual(result.session);
    });

    it('getSession: an unknown id returns null', async () => {
      expect(await context.store().getSession('no-such-session')).toBeNull();
    });

    it('createSession: same launch id and same settings returns the first session', async () => {
      const store = context.store();
      const first = await createTestSession(store, { launchId: 'launch-1', config: { a: 1, b: { c: 2 } } });
      const again = await store.createSession({
        id: uniqueId('session'),
        launchId: 'launch-1',
        provider: first.provider,
        role: first.role,
        model: first.model,
        cwd: first.cwd,
        // Key order must not matter: stores may reorder JSON keys.
        config: { b: { c: 2 }, a: 1 },
        now: 9_000,
      });
      expect(again).toEqual({ session: first, created: false });
      expect(await store.listSessions()).toHaveLength(1);
    });

    it('createSession: same launch id with other settings is a conflict and creates nothing', async () => {
      const store = context.store();
      const first = await createTestSession(store, { launchId: 'launch-2', config: { a: 1 } });
      const base = {
        launchId: 'launch-2',
        provider: first.provider,
        role: first.role,
        model: first.model,
        cwd: first.cwd,
        config: first.config,
        now: 2_000,
      };
      const variants = [
        { config: { a: 2 } },
        { model: 'claude-opus-4-1' },
        { role: null },
        { cwd: '/elsewhere' },
        { provider: 'other' },
      ];
      for (const variant of variants) {
        const attempt = store.createSession({ ...base, ...variant, id: uniqueId('session') });
        await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      }
      expect((await store.listSessions()).map((session) => session.id)).toEqual([first.id]);
    });

    it('createSession: an id that exists is a conflict', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      await expect(createTestSession(store, { id: first.id, cwd: '/other' })).rejects.toMatchObject({
        code: 'conflict',
      });
      expect(await store.getSession(first.id)).toEqual(first);
    });

    it('createSession: sessions without a launch id never collide', async () => {
      const store = context.store();
      await createTestSession(store, { launchId: null });
      await createTestSession(store);
      expect(await store.listSessions()).toHaveLength(2);
    });

    it('updateSession: changes the given fields and updatedAt, and keeps the rest', async () => {
      const store = context.store();
      const session = await createTestSession(store, { title: 'first title' });
      const updated = await store.updateSession(session.id, { nativeSessionId: 'native-1', now: 7_000 });
      expect(updated).toEqual({ ...session, nativeSessionId: 'native-1', updatedAt: 7_000 });
      const archived = await store.updateSession(session.id, { state: 'archived', title: null, now: 8_000 });
      expect(archived).toEqual({ ...updated, state: 'archived', title: null, updatedAt: 8_000 });
      expect(await store.getSession(session.id)).toEqual(archived);
    });

    it('updateSession: an unknown id is NotFoundError', async () => {
      await expect(
        context.store().updateSession('no-such-session', { title: 'x', now: 1 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('listSessions: newest first, filtered by state and limited', async () => {
      const store = context.store();
      const old = await createTestSession(store, { now: 1_000 });
      const middle = await createTestSession(store, { now: 2_000 });
      const newest = await createTestSession(store, { now: 3_000 });
      await store.updateSession(middle.id, { state: 'archived', now: 4_000 });
      expect((await store.listSessions()).map((session) => session.id)).toEqual([
        newest.id,
        middle.id,
        old.id,
      ]);
      expect((await store.listSessions({ state: 'active' })).map((session) => session.id)).toEqual([
        newest.id,
        old.id,
      ]);
      expect((await store.listSessions({ state: 'archived' })).map((session) => session.id)).toEqual([
        middle.id,
      ]);
      expect((await store.listSessions({ limit: 2 })).map((session) => session.id)).toEqual([
        newest.id,
        middle.id,
      ]);
    });

    it('createSession: stores the organization and role version; costUsd starts at 0', async () => {
      const store = context.store();
      const session = await createTestSession(store, {
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 3,
      });
      expect(session).toMatchObject({ organization: 'acme', role: 'reviewer', roleVersion: 3, costUsd: 0 });
      expect(await store.getSession(session.id)).toEqual(session);
    });

    it('createSession: a launch id retried under another organization conflicts, under another role version not', async () => {
      const store = context.store();
      const first = await createTestSession(store, {
        launchId: 'launch-3',
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 1,
      });
      const base = {
        launchId: 'launch-3',
        provider: first.provider,
        role: first.role,
        model: first.model,
        cwd: first.cwd,
        config: first.config,
        now: 2_000,
      };
      await expect(
        store.createSession({ ...base, id: uniqueId('session'), organization: 'other', roleVersion: 1 }),
      ).rejects.toBeInstanceOf(ConflictError);
      const retried = await store.createSession({
        ...base,
        id: uniqueId('session'),
        organization: 'acme',
        roleVersion: 2,
      });
      expect(retried).toEqual({ session: first, created: false });
    });

    it('listSessions: filtered by organization and role (any version)', async () => {
      const store = context.store();
      const v1 = await createTestSession(store, {
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 1,
        now: 1,
      });
      const v2 = await createTestSession(store, {
        organization: 'acme',
        role: 'reviewer',
        roleVersion: 2,
        now: 2,
      });
      const writer = await createTestSession(store, {
        organization: 'acme',
        role: 'writer',
        roleVersion: 1,
        now: 3,
      });
      const other = await createTestSession(store, {
        organization: 'other',
        role: 'reviewer',
        roleVersion: 1,
        now: 4,
      });
      await createTestSession(store, { organization: null, role: null, now: 5 });
      const ids = async (options: Parameters<typeof store.listSessions>[0]) =>
        (await store.listSessions(options)).map((session) => session.id);
      expect(await ids({ organization: 'acme', role: 'reviewer' })).toEqual([v2.id, v1.id]);
      expect(await ids({ organization: 'acme' })).toEqual([writer.id, v2.id, v1.id]);
      expect(await ids({ role: 'reviewer' })).toEqual([other.id, v2.id, v1.id]);
      await store.updateSession(v1.id, { state: 'archived', now: 6 });
      expect(await ids({ organization: 'acme', role: 'reviewer', state: 'active' })).toEqual([v2.id]);
      expect(await ids({ organization: 'acme', role: 'reviewer', limit: 1 })).toEqual([v2.id]);
      expect(await ids({ organization: 'nowhere' })).toEqual([]);
    });
  });
}
