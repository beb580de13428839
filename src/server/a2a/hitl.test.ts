import { type Message, type Part, Role } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../store/store.js';
import {
  askedInteractionIds,
  confirmationPart,
  inputRequiredParts,
  isReplyData,
  resolveReply,
} from './hitl.js';
import { dataPart, textPart } from './parts.js';

function interaction(overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  return {
    id: 'int-1',
    sessionId: 'session-1',
    executionId: 'exec-1',
    kind: 'approval',
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    request: { input: { command: 'rm -rf build' } },
    state: 'pending',
    answer: null,
    createdAt: 1,
    answeredAt: null,
    ...overrides,
  };
}

const question = interaction({
  id: 'int-q',
  kind: 'question',
  toolName: 'AskUserQuestion',
  toolUseId: 'toolu_q',
  request: { input: { questions: [{ question: 'Which colour?' }] } },
});

function message(...parts: Part[]): Message {
  return {
    messageId: 'm',
    contextId: 'c',
    taskId: 't',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const answers = (reply: Message, pending: InteractionRecord[]) =>
  resolveReply(reply, pending).map(({ interaction: target, answer }) => [target.id, answer]);

describe('confirmation requests', () => {
  it('confirmationPart: kagent’s adk_request_confirmation DataPart, a long-running function call', () => {
    const part = confirmationPart(interaction());
    expect(part.content).toEqual({
      $case: 'data',
      value: {
        name: 'adk_request_confirmation',
        id: 'int-1',
        args: {
          originalFunctionCall: { name: 'Bash', args: { command: 'rm -rf build' }, id: 'toolu_1' },
          toolConfirmation: { hint: "Tool 'Bash' requires approval before execution.", confirmed: false },
        },
      },
    });
    expect(part.metadata).toMatchObject({ kagent_type: 'function_call', kagent_is_long_running: true });
  });

  it('inputRequiredParts: a text for people, then one DataPart per pending interaction', () => {
    const parts = inputRequiredParts([interaction(), question]);
    expect(parts[0]?.content?.$case).toBe('text');
    expect(askedInteractionIds(message(...parts))).toEqual(['int-1', 'int-q']);
  });
});

describe('resolveReply', () => {
  it('decision_type approve approves every pending approval, and no question', () => {
    expect(answers(message(dataPart({ decision_type: 'approve' })), [interaction(), question])).toEqual([
      ['int-1', { decision: 'approve' }],
    ]);
  });

  it('decision_type reject denies with the rejection reason', () => {
    const reply = message(dataPart({ decision_type: 'reject', rejection_reason: 'Too dangerous' }));
    expect(answers(reply, [interaction()])).toEqual([
      ['int-1', { decision: 'deny', reason: 'Too dangerous' }],
    ]);
  });

  it('decision_type batch decides per tool use id (or interaction id), with reasons; the rest stay pending', () => {
    const second = interaction({ id: 'int-2', toolUseId: 'toolu_2' });
    const third = interaction({ id: 'int-3', toolUseId: 'toolu_3' });
    const reply = message(
      dataPart({
        decision_type: 'batch',
        decisions: { toolu_1: 'approve', 'int-2': 'reject' },
        rejection_reasons: { 'int-2': 'Not authorized' },
      }),
    );
    expect(answers(reply, [interaction(), second, third])).toEqual([
      ['int-1', { decision: 'approve' }],
      ['int-2', { decision: 'deny', reason: 'Not authorized' }],
    ]);
  });

  it('ask_user_answers by question, as a list aligned with the questions, or as one answer', () => {
    expect(answers(message(dataPart({ ask_user_answers: { 'Which colour?': 'blue' } })), [question])).toEqual(
      [['int-q', { answers: { 'Which colour?': 'blue' } }]],
    );
    expect(
      answers(message(dataPart({ ask_user_answers: [{ answer: ['red', 'blue'] }] })), [question]),
    ).toEqual([['int-q', { answers: { 'Which colour?': 'red, blue' } }]]);
    expect(answers(message(dataPart({ ask_user_answers: 'green' })), [question])).toEqual([
      ['int-q', { answers: { 'Which colour?': 'green' } }],
    ]);
  });

  it('ADK’s own confirmation response confirms or refuses the interaction it names', () => {
    const reply = message(
      dataPart({ name: 'adk_request_confirmation', id: 'int-1', response: { confirmed: false } }),
    );
    expect(answers(reply, [interaction()])).toEqual([['int-1', { decision: 'deny' }]]);
  });

  it('plain text: kagent’s approve and deny words for approvals, the answer itself for questions', () => {
    expect(answers(message(textPart('Yes, go ahead')), [interaction()])).toEqual([
      ['int-1', { decision: 'approve' }],
    ]);
    expect(answers(message(textPart('no: use the scratch dir')), [interaction()])).toEqual([
      ['int-1', { decision: 'deny', reason: 'no: use the scratch dir' }],
    ]);
    expect(answers(message(textPart('maybe later')), [interaction()])).toEqual([]);
    expect(answers(message(textPart('blue')), [question])).toEqual([
      ['int-q', { answers: { 'Which colour?': 'blue' } }],
    ]);
  });

  it('isReplyData tells replies from data meant for the agent', () => {
    expect(isReplyData({ decision_type: 'approve' })).toBe(true);
    expect(isReplyData({ ask_user_answers: {} })).toBe(true);
    expect(isReplyData({ name: 'adk_request_confirmation', response: {} })).toBe(true);
    expect(isReplyData({ rows: [1, 2] })).toBe(false);
  });
});
