import { describe, expect, it } from 'vitest';
import type { ContractContext } from './contract-context.js';

export function describeChatMessageContract(context: ContractContext): void {
  describe('chat messages', () => {
    const reply = {
      sessionId: 's1',
      kind: 'reply' as const,
      ref: 'input-1',
      channelKey: 'feishu:oc_1',
      messageId: 'om_1',
      cursor: 7,
      done: false,
    };

    it('saveChatMessage: records where a reply is shown; getChatMessage reads it back', async () => {
      const store = context.store();
      const saved = await store.saveChatMessage({ ...reply, now: 1_000 });
      expect(saved).toEqual({ ...reply, updatedAt: 1_000 });
      expect(await store.getChatMessage({ sessionId: 's1', kind: 'reply', ref: 'input-1' })).toEqual(saved);
      expect(await store.getChatMessage({ sessionId: 's1', kind: 'card', ref: 'input-1' })).toBeNull();
      expect(await store.getChatMessage({ sessionId: 's2', kind: 'reply', ref: 'input-1' })).toBeNull();
    });

    it('saveChatMessage: the same session, kind and ref again updates the one record', async () => {
      const store = context.store();
      await store.saveChatMessage({ ...reply, now: 1 });
      const done = await store.saveChatMessage({ ...reply, done: true, now: 2 });
      expect(done).toEqual({ ...reply, done: true, updatedAt: 2 });
      expect(await store.getChatMessage(reply)).toEqual(done);
      expect(await store.listOpenChatMessages({ channelPrefix: '' })).toEqual([]);
    });

    it('listOpenChatMessages: the ones not done, of channels with the prefix taken literally, oldest first', async () => {
      const store = context.store();
      await store.saveChatMessage({ ...reply, ref: 'a', now: 1 });
      await store.saveChatMessage({ ...reply, kind: 'card', ref: 'i-1', now: 2 });
      await store.saveChatMessage({ ...reply, ref: 'b', done: true, now: 3 });
      await store.saveChatMessage({ ...reply, ref: 'c', channelKey: 'telegram:-100', now: 4 });
      await store.saveChatMessage({ ...reply, ref: 'd', channelKey: 'feishuX:oc', now: 5 });
      const open = await store.listOpenChatMessages({ channelPrefix: 'feishu:' });
      expect(open.map((message) => [message.kind, message.ref])).toEqual([
        ['reply', 'a'],
        ['card', 'i-1'],
      ]);
      // `_` and `%` are not wildcards.
      expect(await store.listOpenChatMessages({ channelPrefix: 'feishu_' })).toEqual([]);
      expect(
        (await store.listOpenChatMessages({ channelPrefix: 'telegram:' })).map((each) => each.ref),
      ).toEqual(['c']);
    });
  });
}
