import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { InteractionRecord, Store } from '../store.js';
import { type ContractContext, createTestSession, uniqueId } from './contract-context.js';

type NewInteraction = Omit<InteractionRecord, 'state' | 'answer' | 'answeredAt'>;

function approval(sessionId: string, overrides: Partial<NewInteraction> = {}): NewInteraction {
  return {
    id: uniqueId('interaction'),
    sessionId,
    executionId: 'exec-1',
    kind: 'approval',
    toolName: 'Bash',
    toolUseId: 'toolu_01',
    request: { input: { command: 'rm -rf build' }, suggestions: [{ type: 'addRules' }] },
    createdAt: 3_000,
    ...overrides,
  };
}

async function pending(store: Store) {
  const session = await createTestSession(store);
  const interaction = await store.createInteraction(approval(session.id));
  return { session, interaction };
}

export function describeInteractionContract(context: ContractContext): void {
  describe('interactions', () => {
    it('createInteraction: stores a pending interaction with its full request', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const request = approval(session.id);
      const created = await store.createInteraction(request);
      expect(created).toEqual({ ...request, state: 'pending', answer: null, answeredAt: null });
      expect(await store.getInteraction(request.id)).toEqual(created);
      expect(await store.getInteraction('no-such-interaction')).toBeNull();
    });

    it('createInteraction: a second create with the same id returns the first', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const first = await store.createInteraction(approval(session.id, { id: 'ask-1' }));
      const again = await store.createInteraction(
        approval(session.id, { id: 'ask-1', toolName: 'Write', createdAt: 9_000 }),
      );
      expect(again).toEqual(first);
      expect(await store.listInteractions({ sessionId: session.id })).toEqual([first]);
    });

    it('createInteraction: a question without tool use id is stored as given', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const question = approval(session.id, {
        kind: 'question',
        toolName: 'AskUserQuestion',
        toolUseId: null,
        executionId: null,
        request: { questions: [{ question: 'Which branch?', options: ['main', 'dev'] }] },
      });
      expect(await store.createInteraction(question)).toMatchObject({ ...question, state: 'pending' });
    });

    it('answerInteraction: records the answer of a pending interaction', async () => {
      const store = context.store();
      const { interaction } = await pending(store);
      const answered = await store.answerInteraction(interaction.id, { behavior: 'allow' }, 4_000);
      expect(answered).toEqual({
        ...interaction,
        state: 'answered',
        answer: { behavior: 'allow' },
        answeredAt: 4_000,
      });
      expect(await store.getInteraction(interaction.id)).toEqual(answered);
    });

    it('answerInteraction: a second answer is a conflict and the first answer stays', async () => {
      const store = context.store();
      const { interaction } = await pending(store);
      const first = await store.answerInteraction(interaction.id, { behavior: 'deny', message: 'no' }, 4_000);
      const second = store.answerInteraction(interaction.id, { behavior: 'allow' }, 5_000);
      await expect(second).rejects.toBeInstanceOf(ConflictError);
      expect(await store.getInteraction(interaction.id)).toEqual(first);
    });

    it('answerInteraction: of two racing answers exactly one is recorded', async () => {
      const store = context.store();
      const { interaction } = await pending(store);
      const results = await Promise.allSettled([
        store.answerInteraction(interaction.id, { behavior: 'allow' }, 4_000),
        store.answerInteraction(interaction.id, { behavior: 'deny', message: 'no' }, 4_000),
      ]);
      const fulfilled = results.filter((result) => result.status === 'fulfilled');
      const rejected = results.filter((result) => result.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toBeInstanceOf(ConflictError);
      expect((await store.getInteraction(interaction.id))?.answer).toEqual(
        fulfilled[0]?.status === 'fulfilled' ? fulfilled[0].value.answer : undefined,
      );
    });

    it('answerInteraction: an unknown id is NotFoundError', async () => {
      await expect(context.store().answerInteraction('no-such-interaction', {}, 1)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('createInteraction: an unknown session is NotFoundError', async () => {
      await expect(context.store().createInteraction(approval('no-such-session'))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('listInteractions: filtered by session and state, in creation order', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      const a = await store.createInteraction(approval(first.id, { id: 'z-a' }));
      const b = await store.createInteraction(approval(second.id, { id: 'y-b' }));
      const c = await store.createInteraction(approval(first.id, { id: 'x-c' }));
      const answeredC = await store.answerInteraction(c.id, { behavior: 'allow' }, 4_000);
      const ids = (records: InteractionRecord[]) => records.map((record) => record.id);
      expect(ids(await store.listInteractions())).toEqual([a.id, b.id, c.id]);
      expect(ids(await store.listInteractions({ state: 'pending' }))).toEqual([a.id, b.id]);
      expect(await store.listInteractions({ state: 'answered' })).toEqual([answeredC]);
      expect(ids(await store.listInteractions({ sessionId: first.id }))).toEqual([a.id, c.id]);
      expect(ids(await store.listInteractions({ sessionId: first.id, state: 'pending' }))).toEqual([a.id]);
      expect(await store.listInteractions({ sessionId: 'no-such-session' })).toEqual([]);
    });
  });
}
