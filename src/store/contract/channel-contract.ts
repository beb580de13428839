import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ContractContext } from './contract-context.js';

export function describeChannelContract(context: ContractContext): void {
  describe('channels', () => {
    const group = { key: 'chat:group-1', organization: 'acme', project: 'web', role: 'assistant' };

    it('bindChannel: creates the channel with its first role', async () => {
      const store = context.store();
      const result = await store.bindChannel({ ...group, now: 1_000 });
      expect(result).toEqual({ channel: { ...group, createdAt: 1_000, updatedAt: 1_000 }, created: true });
      expect(await store.getChannel(group.key)).toEqual(result.channel);
      expect(await store.getChannel('no-such-channel')).toBeNull();
    });

    it('bindChannel: again with the same organization and project returns it unchanged', async () => {
      const store = context.store();
      const { channel } = await store.bindChannel({ ...group, now: 1 });
      const selected = await store.selectChannelRole({ key: group.key, role: 'reviewer', now: 2 });
      const again = await store.bindChannel({ ...group, role: 'writer', now: 3 });
      expect(again).toEqual({ channel: selected, created: false });
      expect(selected).toEqual({ ...channel, role: 'reviewer', updatedAt: 2 });
    });

    it('bindChannel: another organization or project is ConflictError and changes nothing', async () => {
      const store = context.store();
      const { channel } = await store.bindChannel({ ...group, now: 1 });
      await expect(store.bindChannel({ ...group, organization: 'other', now: 2 })).rejects.toBeInstanceOf(
        ConflictError,
      );
      await expect(store.bindChannel({ ...group, project: 'api', now: 2 })).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect(await store.getChannel(group.key)).toEqual(channel);
    });

    it('listChannels: in creation order, filtered by organization', async () => {
      const store = context.store();
      await store.bindChannel({ ...group, key: 'b', now: 1 });
      await store.bindChannel({ ...group, key: 'a', organization: 'other', now: 2 });
      await store.bindChannel({ ...group, key: 'c', now: 3 });
      expect((await store.listChannels()).map((channel) => channel.key)).toEqual(['b', 'a', 'c']);
      expect((await store.listChannels({ organization: 'acme' })).map((channel) => channel.key)).toEqual([
        'b',
        'c',
      ]);
      expect(await store.listChannels({ organization: 'nowhere' })).toEqual([]);
    });

    it('selectChannelRole: an unknown channel is NotFoundError', async () => {
      await expect(
        context.store().selectChannelRole({ key: 'no-such-channel', role: 'x', now: 1 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('channel sessions: one per role, kept across role switches', async () => {
      const store = context.store();
      await store.bindChannel({ ...group, now: 1 });
      expect(await store.getChannelSession(group.key, 'assistant')).toBeNull();
      expect(await store.setChannelSession({ key: group.key, role: 'assistant', sessionId: 's-a' })).toBe(
        true,
      );
      expect(await store.setChannelSession({ key: group.key, role: 'reviewer', sessionId: 's-r' })).toBe(
        true,
      );
      expect(await store.getChannelSession(group.key, 'assistant')).toBe('s-a');
      expect(await store.getChannelSession(group.key, 'reviewer')).toBe('s-r');
      // Without `expect` it overwrites.
      expect(await store.setChannelSession({ key: group.key, role: 'assistant', sessionId: 's-a2' })).toBe(
        true,
      );
      expect(await store.getChannelSession(group.key, 'assistant')).toBe('s-a2');
      expect(await store.getChannelSession('no-such-channel', 'assistant')).toBeNull();
    });

    it('setChannelSession: with `expect` it is a compare-and-set', async () => {
      const store = context.store();
      await store.bindChannel({ ...group, now: 1 });
      const key = group.key;
      const role = 'assistant';
      expect(await store.setChannelSession({ key, role, sessionId: 's1', expect: 'other' })).toBe(false);
      expect(await store.getChannelSession(key, role)).toBeNull();
      expect(await store.setChannelSession({ key, role, sessionId: 's1', expect: null })).toBe(true);
      expect(await store.setChannelSession({ key, role, sessionId: 's2', expect: null })).toBe(false);
      expect(await store.getChannelSession(key, role)).toBe('s1');
      expect(await store.setChannelSession({ key, role, sessionId: 's2', expect: 's1' })).toBe(true);
      expect(await store.getChannelSession(key, role)).toBe('s2');
    });

    it('setChannelSession: of racing compare-and-sets from none, exactly one wins', async () => {
      const store = context.store();
      await store.bindChannel({ ...group, now: 1 });
      const results = await Promise.all(
        ['s1', 's2', 's3', 's4'].map((sessionId) =>
          store.setChannelSession({ key: group.key, role: 'assistant', sessionId, expect: null }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ['s1', 's2', 's3', 's4'][results.indexOf(true)];
      expect(await store.getChannelSession(group.key, 'assistant')).toBe(winner);
    });

    it('setChannelSession: an unknown channel is NotFoundError', async () => {
      await expect(
        context.store().setChannelSession({ key: 'no-such-channel', role: 'x', sessionId: 's' }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });
  });
}
