import { describe, expect, it } from 'vitest';
import { ConflictError, LeaseLostError, NotFoundError } from '../../errors/agentd-error.js';
import type { Store } from '../store.js';
import { type ContractContext, createTestSession, uniqueId } from './contract-context.js';

async function addInput(
  store: Store,
  options: { sessionId: string; messageId: string; text?: string; now?: number },
) {
  return store.addInput({
    id: uniqueId('input'),
    sessionId: options.sessionId,
    messageId: options.messageId,
    text: options.text ?? `text of ${options.messageId}`,
    now: options.now ?? 2_000,
  });
}

/** A session whose execution holds the lease and is `state`: what a live worker has. */
async function liveExecution(store: Store, state: 'idle' | 'running' | 'stopping' = 'idle') {
  const session = await createTestSession(store);
  const execution = await store.createExecution({ id: uniqueId('exec'), sessionId: session.id, now: 1_000 });
  const lease = await store.acquireLease({
    sessionId: session.id,
    owner: execution.id,
    ttlMs: 60_000,
    pid: null,
    processStartTime: null,
    now: 1_000,
  });
  await store.updateExecution(execution.id, { state, epoch: lease!.epoch, now: 1_000 });
  return { session, execution, dispatch: { executionId: execution.id, epoch: lease!.epoch } };
}

export function describeInputContract(context: ContractContext): void {
  describe('inputs', () => {
    it('addInput: a new message id is journaled as accepted', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const result = await store.addInput({
        id: 'input-1',
        sessionId: session.id,
        messageId: 'client-1',
        text: 'Summarize the README',
        now: 3_000,
      });
      expect(result).toEqual({
        created: true,
        events: [],
        input: {
          id: 'input-1',
          sessionId: session.id,
          messageId: 'client-1',
          text: 'Summarize the README',
          state: 'accepted',
          executionId: null,
          createdAt: 3_000,
          updatedAt: 3_000,
        },
      });
      expect(await store.getInput(session.id, 'client-1')).toEqual(result.input);
    });

    it('addInput: same message id and text returns the first input', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const first = await addInput(store, { sessionId: session.id, messageId: 'm1', text: 'same' });
      const again = await addInput(store, {
        sessionId: session.id,
        messageId: 'm1',
        text: 'same',
        now: 9_000,
      });
      expect(again).toEqual({ input: first.input, created: false, events: [] });
      expect(await store.listInputs(session.id)).toEqual([first.input]);
    });

    it('addInput: same message id and other text is a conflict that changes nothing', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const first = await addInput(store, { sessionId: session.id, messageId: 'm1', text: 'original' });
      const attempt = addInput(store, { sessionId: session.id, messageId: 'm1', text: 'edited' });
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      await expect(attempt).rejects.toMatchObject({
        code: 'conflict',
        details: expect.objectContaining({ messageId: 'm1' }),
      });
      expect(await store.listInputs(session.id)).toEqual([first.input]);
    });

    it('addInput: the same message id in another session is another input', async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      const a = await addInput(store, { sessionId: first.id, messageId: 'm1', text: 'one' });
      const b = await addInput(store, { sessionId: second.id, messageId: 'm1', text: 'two' });
      expect(b.created).toBe(true);
      expect(b.input.id).not.toBe(a.input.id);
      expect((await store.getInput(second.id, 'm1'))?.text).toBe('two');
    });

    it('addInput: an unknown session is NotFoundError', async () => {
      await expect(
        addInput(context.store(), { sessionId: 'no-such-session', messageId: 'm1' }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('getInput: an unknown message id returns null', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      expect(await store.getInput(session.id, 'never-sent')).toBeNull();
    });

    it('listInputs: in the order they were accepted, filtered by state', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      // Same timestamp on purpose: order must come from the journal, not the clock.
      const ids: string[] = [];
      for (const messageId of ['z', 'a', 'm', 'b']) {
        ids.push((await addInput(store, { sessionId: session.id, messageId, now: 5_000 })).input.id);
      }
      expect((await store.listInputs(session.id)).map((input) => input.id)).toEqual(ids);
      await store.updateInputStates({
        sessionId: session.id,
        inputIds: [ids[1]!, ids[3]!],
        from: ['accepted'],
        to: 'delivered',
        now: 6_000,
      });
      const delivered = await store.listInputs(session.id, { states: ['delivered'] });
      expect(delivered.map((input) => input.id)).toEqual([ids[1], ids[3]]);
      const open = await store.listInputs(session.id, { states: ['accepted', 'dispatching'] });
      expect(open.map((input) => input.id)).toEqual([ids[0], ids[2]]);
    });

    it('updateInputStates: moves only inputs whose state is in `from` and returns them', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const first = (await addInput(store, { sessionId: session.id, messageId: 'm1' })).input;
      const second = (await addInput(store, { sessionId: session.id, messageId: 'm2' })).input;
      await store.updateInputStates({
        sessionId: session.id,
        inputIds: [second.id],
        from: ['accepted'],
        to: 'delivered',
        now: 3_000,
      });
      const moved = await store.updateInputStates({
        sessionId: session.id,
        inputIds: [first.id, second.id],
        from: ['accepted'],
        to: 'dispatching',
        executionId: 'exec-1',
        now: 4_000,
      });
      expect(moved).toEqual([{ ...first, state: 'dispatching', executionId: 'exec-1', updatedAt: 4_000 }]);
      expect((await store.getInput(session.id, 'm2'))?.state).toBe('delivered');
    });

    it('updateInputStates: without executionId the recorded execution is kept', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const input = (await addInput(store, { sessionId: session.id, messageId: 'm1' })).input;
      await store.updateInputStates({
        sessionId: session.id,
        inputIds: [input.id],
        from: ['accepted'],
        to: 'dispatching',
        executionId: 'exec-1',
        now: 3_000,
      });
      const [uncertain] = await store.updateInputStates({
        sessionId: session.id,
        inputIds: [input.id],
        from: ['dispatching'],
        to: 'uncertain',
        now: 4_000,
      });
      expect(uncertain).toMatchObject({ state: 'uncertain', executionId: 'exec-1', updatedAt: 4_000 });
    });

    it('updateInputStates: returns the changed inputs in journal order', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const inputs = [];
      for (const messageId of ['m1', 'm2', 'm3']) {
        inputs.push((await addInput(store, { sessionId: session.id, messageId })).input);
      }
      const moved = await store.updateInputStates({
        sessionId: session.id,
        inputIds: [inputs[2]!.id, inputs[0]!.id, inputs[1]!.id],
        from: ['accepted'],
        to: 'dispatching',
        now: 3_000,
      });
      expect(moved.map((input) => input.messageId)).toEqual(['m1', 'm2', 'm3']);
    });

    it("updateInputStates: ignores ids of another session's inputs", async () => {
      const store = context.store();
      const first = await createTestSession(store);
      const second = await createTestSession(store);
      const foreign = (await addInput(store, { sessionId: second.id, messageId: 'm1' })).input;
      const moved = await store.updateInputStates({
        sessionId: first.id,
        inputIds: [foreign.id],
        from: ['accepted'],
        to: 'dispatching',
        now: 3_000,
      });
      expect(moved).toEqual([]);
      expect(await store.getInput(second.id, 'm1')).toEqual(foreign);
    });

    it('addInput: its event is journaled with a new input, and not with a repeated one', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const event = { type: 'input.accepted', data: { inputId: 'input-e1', messageId: 'm1', text: 'hi' } };
      const first = await store.addInput({
        id: 'input-e1',
        sessionId: session.id,
        messageId: 'm1',
        text: 'hi',
        now: 2_000,
        event,
      });
      expect(first.events.map((record) => [record.cursor, record.type, record.data])).toEqual([
        [1, 'input.accepted', event.data],
      ]);
      const again = await store.addInput({
        id: 'input-e2',
        sessionId: session.id,
        messageId: 'm1',
        text: 'hi',
        now: 3_000,
        event: { ...event, data: { ...event.data, inputId: 'input-e2' } },
      });
      expect(again).toEqual({ input: first.input, created: false, events: [] });
      expect((await store.readEvents(session.id)).map((record) => record.type)).toEqual(['input.accepted']);
    });

    it('addInput: a conflicting message id journals no event', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      await addInput(store, { sessionId: session.id, messageId: 'm1', text: 'first' });
      const attempt = store.addInput({
        id: uniqueId('input'),
        sessionId: session.id,
        messageId: 'm1',
        text: 'other',
        now: 3_000,
        event: { type: 'input.accepted', data: {} },
      });
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      expect(await store.lastCursor(session.id)).toBe(0);
    });

    it('updateInputStates: its events are journaled only when an input changed', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const { input } = await addInput(store, { sessionId: session.id, messageId: 'm1' });
      const move = () =>
        store.updateInputStates({
          sessionId: session.id,
          inputIds: [input.id],
          from: ['accepted'],
          to: 'delivered',
          now: 3_000,
          events: [{ type: 'input.delivered', data: { inputId: input.id } }],
        });
      expect((await move()).map((changed) => changed.state)).toEqual(['delivered']);
      expect(await move()).toEqual([]);
      expect((await store.readEvents(session.id)).map((record) => record.type)).toEqual(['input.delivered']);
    });

    it('dispatchInput: the execution runs and the input is dispatching, in one step', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const execution = await store.createExecution({
        id: uniqueId('exec'),
        sessionId: session.id,
        now: 1_000,
      });
      const lease = await store.acquireLease({
        sessionId: session.id,
        owner: execution.id,
        ttlMs: 60_000,
        pid: null,
        processStartTime: null,
        now: 1_000,
      });
      await store.updateExecution(execution.id, { state: 'idle', epoch: lease!.epoch, now: 1_000 });
      const { input } = await addInput(store, { sessionId: session.id, messageId: 'm1' });
      const dispatched = await store.dispatchInput({
        sessionId: session.id,
        inputId: input.id,
        executionId: execution.id,
        epoch: lease!.epoch,
        now: 4_000,
      });
      expect(dispatched.execution.state).toBe('running');
      expect(dispatched.input).toMatchObject({
        id: input.id,
        state: 'dispatching',
        executionId: execution.id,
      });
      // Dispatched once: a second attempt changes nothing.
      const again = await store.dispatchInput({
        sessionId: session.id,
        inputId: input.id,
        executionId: execution.id,
        epoch: lease!.epoch,
        now: 5_000,
      });
      expect(again.input).toBeNull();
    });

    it('dispatchInput: a stop asked for wins: the input stays accepted', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const execution = await store.createExecution({
        id: uniqueId('exec'),
        sessionId: session.id,
        now: 1_000,
      });
      const lease = await store.acquireLease({
        sessionId: session.id,
        owner: execution.id,
        ttlMs: 60_000,
        pid: null,
        processStartTime: null,
        now: 1_000,
      });
      await store.updateExecution(execution.id, { state: 'stopping', epoch: lease!.epoch, now: 1_000 });
      const { input } = await addInput(store, { sessionId: session.id, messageId: 'm1' });
      const outcome = await store.dispatchInput({
        sessionId: session.id,
        inputId: input.id,
        executionId: execution.id,
        epoch: lease!.epoch,
        now: 4_000,
      });
      expect(outcome.execution.state).toBe('stopping');
      expect(outcome.input).toBeNull();
      expect((await store.getInput(session.id, 'm1'))?.state).toBe('accepted');
    });

    it('dispatchInput: a stale epoch is LeaseLostError and changes nothing', async () => {
      const store = context.store();
      const session = await createTestSession(store);
      const execution = await store.createExecution({
        id: uniqueId('exec'),
        sessionId: session.id,
        now: 1_000,
      });
      const lease = { sessionId: session.id, ttlMs: 1_000, pid: null, processStartTime: null };
      await store.acquireLease({ ...lease, owner: execution.id, now: 1_000 });
      await store.updateExecution(execution.id, { state: 'idle', epoch: 1, now: 1_000 });
      await store.acquireLease({ ...lease, owner: 'other', now: 5_000 });
      const { input } = await addInput(store, { sessionId: session.id, messageId: 'm1' });
      const attempt = store.dispatchInput({
        sessionId: session.id,
        inputId: input.id,
        executionId: execution.id,
        epoch: 1,
        now: 6_000,
      });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect((await store.getInput(session.id, 'm1'))?.state).toBe('accepted');
      expect((await store.getExecution(execution.id))?.state).toBe('idle');
    });
    it('addInput with dispatch: an idle execution starts its turn on the new input, in the same step', async () => {
      const store = context.store();
      const { session, execution, dispatch } = await liveExecution(store);
      const result = await store.addInput({
        id: 'input-d1',
        sessionId: session.id,
        messageId: 'm1',
        text: 'now',
        now: 3_000,
        event: { type: 'input.accepted', data: { inputId: 'input-d1' } },
        dispatch,
      });
      expect(result.created).toBe(true);
      expect(result.input).toMatchObject({ id: 'input-d1', state: 'dispatching', executionId: execution.id });
      expect(result.events.map((event) => event.type)).toEqual(['input.accepted']);
      expect((await store.getExecution(execution.id))?.state).toBe('running');
      // The same message again is the same input, and starts nothing.
      const again = await store.addInput({
        id: 'input-d2',
        sessionId: session.id,
        messageId: 'm1',
        text: 'now',
        now: 4_000,
        dispatch,
      });
      expect(again).toMatchObject({ created: false, input: { id: 'input-d1', state: 'dispatching' } });
    });

    it('addInput with dispatch: behind a waiting input, or on a running or stopping execution, it is only accepted', async () => {
      const store = context.store();
      const queued = await liveExecution(store);
      await addInput(store, { sessionId: queued.session.id, messageId: 'first' });
      const behind = await store.addInput({
        id: uniqueId('input'),
        sessionId: queued.session.id,
        messageId: 'second',
        text: 'b',
        now: 3_000,
        dispatch: queued.dispatch,
      });
      expect(behind.input).toMatchObject({ state: 'accepted', executionId: null });
      expect((await store.getExecution(queued.execution.id))?.state).toBe('idle');
      for (const state of ['running', 'stopping'] as const) {
        const live = await liveExecution(store, state);
        const result = await store.addInput({
          id: uniqueId('input'),
          sessionId: live.session.id,
          messageId: 'm1',
          text: 'x',
          now: 3_000,
          dispatch: live.dispatch,
        });
        expect(result.input.state).toBe('accepted');
        expect((await store.getExecution(live.execution.id))?.state).toBe(state);
      }
    });

    it('addInput with dispatch: a stale epoch is LeaseLostError and journals nothing', async () => {
      const store = context.store();
      const { session, execution, dispatch } = await liveExecution(store);
      await store.acquireLease({
        sessionId: session.id,
        owner: 'other',
        ttlMs: 1_000,
        pid: null,
        processStartTime: null,
        now: 70_000,
      });
      const attempt = store.addInput({
        id: uniqueId('input'),
        sessionId: session.id,
        messageId: 'm1',
        text: 'late',
        now: 71_000,
        event: { type: 'input.accepted', data: {} },
        dispatch,
      });
      await expect(attempt).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.listInputs(session.id)).toEqual([]);
      expect(await store.lastCursor(session.id)).toBe(0);
      expect((await store.getExecution(execution.id))?.state).toBe('idle');
    });
  });
}
