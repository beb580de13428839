import { type TaskArtifactUpdateEvent, TaskState, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../journal/journal-event.js';
import { toJournalRecord } from '../../journal/read-journal.js';
import type { InteractionRecord } from '../../store/store.js';
import { TaskTranslator } from './journal-translator.js';

let cursor = 0;
/** Fields each test leaves out, so that every event is a whole, valid journal record. */
const defaults: Record<string, Record<string, unknown>> = {
  'agent.message': { messageId: null },
  'agent.tool_call': { detail: '', parentToolUseId: null },
  'agent.error': { error: { message: '', transient: false } },
  'execution.failed': {
    executionId: 'exec-1',
    error: { code: 'worker_died', message: '' },
    uncertainInputIds: [],
  },
};

/** A journal record, checked by the same validation as records read from the store. */
const event = (type: string, data: Record<string, unknown> = {}): JournalRecord => {
  const base = defaults[type] ?? {};
  const error = base.error && data.error ? { error: { ...base.error, ...data.error } } : {};
  return toJournalRecord({
    sessionId: 'session-1',
    cursor: ++cursor,
    type,
    data: { ...base, ...data, ...error },
    executionId: 'exec-1',
    createdAt: 1_700_000_000_000 + cursor,
  });
};

const turn = (overrides: Record<string, unknown> = {}) => ({
  subtype: 'success',
  isError: false,
  result: 'all done',
  usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 5, cacheCreationInputTokens: 0 },
  costUsd: 0.01,
  numTurns: 2,
  durationMs: 400,
  durationApiMs: 300,
  sessionId: 'native-1',
  modelUsage: {},
  inputIds: [],
  ...overrides,
});

const approval: InteractionRecord = {
  id: 'int-1',
  sessionId: 'session-1',
  executionId: 'exec-1',
  kind: 'approval',
  toolName: 'Bash',
  toolUseId: 'toolu_1',
  request: { input: { command: 'ls' } },
  state: 'pending',
  answer: null,
  createdAt: 1,
  answeredAt: null,
};

function summary(events: AgentExecutionEvent[]): string[] {
  return events.map((each) => {
    if (each.kind === 'artifactUpdate')
      return `artifact ${(each.data as TaskArtifactUpdateEvent).artifact?.parts[0]?.content?.value}`;
    const update = each.data as TaskStatusUpdateEvent;
    return TaskState[update.status?.state ?? 0] ?? '?';
  });
}

function translate(translator: TaskTranslator, events: JournalRecord[]) {
  return events.flatMap((each) => translator.translate(each));
}

describe('TaskTranslator', () => {
  it('skips earlier turns, then translates its own up to COMPLETED with the result and usage', () => {
    const translator = new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in-2' });
    const out = translate(translator, [
      event('input.delivered', { inputId: 'in-1' }),
      event('agent.message', { text: 'earlier turn' }),
      event('agent.turn.completed', turn({ result: 'earlier' })),
      event('input.delivered', { inputId: 'in-2' }),
      event('agent.tool_call', { toolUseId: 'toolu_9', name: 'Read', input: { file_path: '/x' } }),
      event('agent.tool_result', { toolUseId: 'toolu_9', content: 'x', isError: false }),
      event('agent.turn.completed', turn()),
      event('agent.message', { text: 'a later turn' }),
    ]);
    expect(summary(out)).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'artifact all done',
      'TASK_STATE_COMPLETED',
    ]);
    expect(translator.done).toBe(true);
    const completed = out.at(-1)!.data as TaskStatusUpdateEvent;
    expect(completed.metadata).toMatchObject({
      'kagent.claude.input_tokens': 100,
      'kagent.claude.output_tokens': 20,
      'kagent.claude.total_tokens': 120,
      'kagent.claude.total_cost_usd': 0.01,
      'kagent.claude.num_turns': 2,
      'kagent.claude.duration_api_ms': 300,
    });
    const result = (out[1]!.data as TaskStatusUpdateEvent).status?.message?.parts[0]?.content;
    expect(result).toEqual({
      $case: 'data',
      value: { id: 'toolu_9', name: 'Read', response: { result: 'x', isError: false } },
    });
  });

  it('is deterministic: the same journal gives the same events and ids', () => {
    const journal = [
      event('input.delivered', { inputId: 'in' }),
      event('agent.message', { text: 'hi' }),
      event('agent.turn.completed', turn()),
    ];
    const once = translate(new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' }), journal);
    const twice = translate(new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' }), journal);
    expect(twice).toEqual(once);
    expect((once[0]!.data as TaskStatusUpdateEvent).status?.message?.messageId).toBe(
      `t:${journal[1]!.cursor}`,
    );
  });

  it('waits for a person on interaction.requested, and goes on when it is answered', () => {
    const translator = new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' });
    const out = translate(translator, [
      event('input.delivered', { inputId: 'in' }),
      event('interaction.requested', { interaction: approval }),
    ]);
    expect(summary(out)).toEqual(['TASK_STATE_INPUT_REQUIRED']);
    expect(translator.paused).toBe(true);
    // The worker died while the person was asked: the approval survives, so does the task.
    expect(translate(translator, [event('execution.failed', { error: { code: 'worker_died' } })])).toEqual(
      [],
    );
    const resumed = translate(translator, [
      event('interaction.answered', { interactionId: 'int-1', answer: { decision: 'approve' } }),
    ]);
    expect(summary(resumed)).toEqual(['TASK_STATE_WORKING']);
    expect(translator.paused).toBe(false);
  });

  it('an interrupted turn is CANCELED, another error FAILED, a worker that died with the input FAILED', () => {
    const cancelled = new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' });
    const out = translate(cancelled, [
      event('input.delivered', { inputId: 'in' }),
      event('agent.turn.completed', turn({ isError: true, subtype: 'error_during_execution' })),
      event('agent.error', { error: { code: 'cancelled', message: 'the turn was interrupted' } }),
    ]);
    expect(summary(out)).toEqual(['TASK_STATE_CANCELED']);

    const failed = new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' });
    expect(
      summary(
        translate(failed, [
          event('input.delivered', { inputId: 'in' }),
          event('agent.error', { error: { code: 'rate_limit', message: '429' } }),
        ]),
      ),
    ).toEqual(['TASK_STATE_FAILED']);

    const lost = new TaskTranslator({ taskId: 't', contextId: 'c', inputId: 'in' });
    expect(translate(lost, [event('execution.failed', { uncertainInputIds: ['other'] })])).toEqual([]);
    expect(summary(translate(lost, [event('execution.failed', { uncertainInputIds: ['in'] })]))).toEqual([
      'TASK_STATE_FAILED',
    ]);
  });
});
