import type { Message, Part } from '@a2a-js/sdk';
import type { Answer } from '../../runtime/answers.js';
import type { InteractionRecord } from '../../store/store.js';
import { dataOf, dataPart, kagentLongRunningKey, kagentTypeKey, textPart } from './parts.js';

/**
 * kagent's human-in-the-loop protocol over A2A: a pending approval or question is an
 * `adk_request_confirmation` function-call DataPart in an INPUT_REQUIRED status; the reply is a
 * message on the same task with a `decision_type` DataPart (approve, reject, batch), an
 * `ask_user_answers` DataPart, ADK's own confirmation response, or plain text.
 */
export const confirmationName = 'adk_request_confirmation';

/** Replies kagent accepts as plain text. */
const approveWords = new Set(['approved', 'approve', 'proceed', 'yes', 'continue']);
const denyWords = new Set(['denied', 'deny', 'reject', 'no', 'cancel', 'stop']);

interface Question {
  question?: unknown;
}

function questionsOf(interaction: InteractionRecord): string[] {
  const input = (interaction.request.input ?? {}) as { questions?: Question[] };
  return (input.questions ?? []).map((item) => String(item.question ?? '')).filter(Boolean);
}

export function confirmationHint(interaction: InteractionRecord): string {
  if (interaction.kind === 'question') return `Claude asks: ${questionsOf(interaction).join(' / ')}`;
  return `Tool '${interaction.toolName}' requires approval before execution.`;
}

/** The DataPart that asks a person about one interaction. */
export function confirmationPart(interaction: InteractionRecord): Part {
  return dataPart(
    {
      name: confirmationName,
      id: interaction.id,
      args: {
        originalFunctionCall: {
          name: interaction.toolName,
          args: interaction.request.input ?? {},
          id: interaction.toolUseId ?? interaction.id,
        },
        toolConfirmation: { hint: confirmationHint(interaction), confirmed: false },
      },
    },
    {
      [kagentTypeKey]: 'function_call',
      [kagentLongRunningKey]: true,
      'agentd.interactionKind': interaction.kind,
    },
  );
}

/** The parts of an INPUT_REQUIRED message: what is asked, in words and as DataParts. */
export function inputRequiredParts(pending: InteractionRecord[]): Part[] {
  const approvals = pending.some((interaction) => interaction.kind === 'approval');
  const questions = pending.some((interaction) => interaction.kind === 'question');
  const how = [
    approvals
      ? 'Reply on this task with a DataPart {"decision_type":"approve"}, {"decision_type":"reject","rejection_reason":"…"} or {"decision_type":"batch","decisions":{"<tool use id>":"approve"|"reject"}}.'
      : '',
    questions ? 'Answer with a DataPart {"ask_user_answers":{"<question>":"<answer>"}} or plain text.' : '',
  ].filter(Boolean);
  const text = [...pending.map(confirmationHint), ...how].join('\n');
  return [textPart(text), ...pending.map(confirmationPart)];
}

/** The ids of the interactions an INPUT_REQUIRED message asks about. */
export function askedInteractionIds(message: Message | undefined): string[] {
  const ids: string[] = [];
  for (const part of message?.parts ?? []) {
    const data = dataOf(part);
    if (data?.name === confirmationName && typeof data.id === 'string') ids.push(data.id);
  }
  return ids;
}

/** True for DataParts that answer interactions (they are not passed on to Claude as text). */
export function isReplyData(data: Record<string, unknown>): boolean {
  return (
    'decision_type' in data ||
    'ask_user_answers' in data ||
    (data.name === confirmationName && 'response' in data)
  );
}

const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map(asText).join(', ')
      : value === undefined || value === null
        ? ''
        : JSON.stringify(value);

/** `ask_user_answers` in any of its shapes: by question, a list aligned with the questions, or one answer. */
function questionAnswers(interaction: InteractionRecord, raw: unknown): Record<string, string> {
  const questions = questionsOf(interaction);
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      questions.map((question, index) => {
        const item = raw[index] as { answer?: unknown } | unknown;
        const value = item !== null && typeof item === 'object' && 'answer' in item ? item.answer : item;
        return [question, asText(value)];
      }),
    );
  }
  if (raw !== null && typeof raw === 'object') {
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.every(([question]) => questions.includes(question)) || questions.length !== 1)
      return Object.fromEntries(entries.map(([question, value]) => [question, asText(value)]));
    return { [questions[0]!]: asText(entries[0]?.[1]) };
  }
  return Object.fromEntries(questions.map((question) => [question, asText(raw)]));
}

function decisionFor(value: unknown, reason: unknown): Answer | undefined {
  const decision = String(value ?? '').toLowerCase();
  if (decision === 'approve' || decision === 'approved') return { decision: 'approve' };
  if (decision === 'reject' || decision === 'deny' || decision === 'denied' || decision === 'rejected')
    return typeof reason === 'string' && reason ? { decision: 'deny', reason } : { decision: 'deny' };
  return undefined;
}

/** The answers a reply gives to the pending interactions; empty when it answers none of them. */
export function resolveReply(
  message: Message,
  pending: InteractionRecord[],
): Array<{ interaction: InteractionRecord; answer: Answer }> {
  const answers = new Map<string, Answer>();
  const approvals = pending.filter((interaction) => interaction.kind === 'approval');
  const questions = pending.filter((interaction) => interaction.kind === 'question');
  for (const part of message.parts) {
    const data = dataOf(part);
    if (!data) continue;
    const type = typeof data.decision_type === 'string' ? data.decision_type.toLowerCase() : undefined;
    if (type === 'batch') {
      const decisions = (data.decisions ?? {}) as Record<string, unknown>;
      const reasons = (data.rejection_reasons ?? {}) as Record<string, unknown>;
      for (const interaction of approvals) {
        const key = [interaction.toolUseId, interaction.id].find(
          (candidate) => candidate && candidate in decisions,
        );
        if (!key) continue;
        const answer = decisionFor(decisions[key], reasons[key]);
        if (answer) answers.set(interaction.id, answer);
      }
    } else if (type !== undefined) {
      const answer = decisionFor(type, data.rejection_reason ?? data.reason);
      if (answer) for (const interaction of approvals) answers.set(interaction.id, answer);
    }
    if ('ask_user_answers' in data) {
      for (const interaction of questions)
        answers.set(interaction.id, { answers: questionAnswers(interaction, data.ask_user_answers) });
    }
    if (data.name === confirmationName && typeof data.id === 'string' && data.response) {
      const response = data.response as { confirmed?: unknown; payload?: { reason?: unknown } };
      const target = pending.find(
        (interaction) => interaction.id === data.id || interaction.toolUseId === data.id,
      );
      if (target?.kind === 'approval' && typeof response.confirmed === 'boolean')
        answers.set(
          target.id,
          decisionFor(response.confirmed ? 'approve' : 'reject', response.payload?.reason)!,
        );
    }
  }
  if (answers.size === 0) {
    const text = message.parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('\n')
      .trim();
    if (text && approvals.length === 0) {
      for (const interaction of questions)
        answers.set(interaction.id, { answers: questionAnswers(interaction, text) });
    } else if (text) {
      const word =
        text
          .toLowerCase()
          .split(/[^a-z]+/)
          .find(Boolean) ?? '';
      if (approveWords.has(word))
        for (const interaction of approvals) answers.set(interaction.id, { decision: 'approve' });
      if (denyWords.has(word))
        for (const interaction of approvals) answers.set(interaction.id, { decision: 'deny', reason: text });
    }
  }
  return pending.flatMap((interaction) => {
    const answer = answers.get(interaction.id);
    return answer ? [{ interaction, answer }] : [];
  });
}
