import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../api/types.js';
import { TimelineModel } from './timeline-model.js';

let cursor = 0;
const event = (type: string, data: Record<string, unknown>): JournalEvent => ({
  sessionId: 's',
  cursor: ++cursor,
  type,
  data,
  executionId: null,
  createdAt: cursor * 1000,
});

describe('TimelineModel', () => {
  it('folds deltas into one streaming row that the whole message replaces, and a result into its call', () => {
    const model = new TimelineModel();
    model.apply([
      event('input.accepted', { inputId: 'i1', messageId: 'm1', text: 'hi' }),
      event('agent.text_delta', { text: 'Hel' }),
      event('agent.text_delta', { text: 'lo' }),
    ]);
    expect(model.items.map((item) => item.kind)).toEqual(['input', 'assistant']);
    expect(model.items[1]).toMatchObject({ text: 'Hello', streaming: true });

    model.apply([
      event('agent.message', { text: 'Hello there' }),
      event('input.delivered', { inputId: 'i1' }),
      event('agent.tool_call', {
        toolUseId: 't1',
        name: 'Bash',
        input: { command: 'ls' },
        detail: 'Bash: ls',
      }),
      event('agent.tool_result', { toolUseId: 't1', content: 'a.txt', isError: false }),
      event('claude.message', { subtype: 'status' }),
      event('agent.turn.completed', {
        subtype: 'success',
        costUsd: 0.5,
        usage: { inputTokens: 10, outputTokens: 2 },
      }),
    ]);
    expect(model.items.map((item) => item.kind)).toEqual(['input', 'assistant', 'tool', 'turn']);
    expect(model.items[0]).toMatchObject({ state: 'delivered' });
    expect(model.items[1]).toMatchObject({ text: 'Hello there', streaming: false });
    expect(model.items[2]).toMatchObject({
      detail: 'Bash: ls',
      result: { content: 'a.txt', isError: false },
    });
    expect(model.items[3]).toMatchObject({ costUsd: 0.5, inputTokens: 10, outputTokens: 2 });
    expect(model.lastCursor).toBe(cursor);
  });

  it('a failed execution marks its uncertain inputs and shows the error code', () => {
    const model = new TimelineModel();
    model.apply([
      event('input.accepted', { inputId: 'i2', messageId: 'm2', text: 'do it' }),
      event('execution.failed', {
        error: { code: 'worker_died', message: 'gone' },
        uncertainInputIds: ['i2'],
      }),
      event('interaction.answered', {
        interactionId: 'x',
        answer: { decision: 'deny', reason: 'no' },
        answeredBy: 'bob',
      }),
    ]);
    expect(model.items[0]).toMatchObject({ kind: 'input', state: 'uncertain' });
    expect(model.items[1]).toMatchObject({ kind: 'error', code: 'worker_died', message: 'gone' });
    expect(model.items[2]).toMatchObject({ kind: 'answer', summary: 'denied: no', answeredBy: 'bob' });
  });
});
