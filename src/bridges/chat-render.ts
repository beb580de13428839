import { AgentdError } from '../errors/index.js';
import type { MessageResult } from '../runtime/messages.js';
import type { InteractionRecord } from '../store/store.js';
import type { ChatButton, OutgoingMessage } from './chat-adapter.js';

/** Telegram allows 4096 characters; Feishu cards more. Long replies keep their end, where the answer is. */
const maxText = 3900;

/** What a reply shows while its turn streams. */
export interface ReplyView {
  text: string;
  /** The tool call running now (`Bash: ls`), if any. */
  tool: string | null;
  status: 'working' | 'waiting' | 'done' | 'failed' | 'stopped';
  /** Why it failed or stopped. */
  detail?: string;
  costUsd: number | null;
}

const statusLine: Record<ReplyView['status'], string> = {
  working: '… working',
  waiting: '⏸ waiting for an approval',
  done: '✓ done',
  failed: '✗ failed',
  stopped: '■ stopped',
};

function clip(text: string): string {
  return text.length <= maxText ? text : `…${text.slice(text.length - maxText)}`;
}

export function renderReply(view: ReplyView): OutgoingMessage {
  const lines: string[] = [];
  if (view.text.trim() !== '') lines.push(view.text.trim(), '');
  if (view.tool && (view.status === 'working' || view.status === 'waiting')) lines.push(`🔧 ${view.tool}`);
  let status = statusLine[view.status];
  if (view.detail) status += `: ${view.detail}`;
  if (view.costUsd !== null) status += ` · $${view.costUsd.toFixed(4)}`;
  lines.push(status);
  return { text: clip(lines.join('\n')) };
}

/** Button data: `ok:<id>`, `no:<id>`, `q:<id>:<option index>` (Telegram allows 64 bytes). */
export type ActionData =
  | { kind: 'approve'; interactionId: string }
  | { kind: 'deny'; interactionId: string }
  | { kind: 'option'; interactionId: string; option: number };

export function parseActionData(data: string): ActionData | null {
  const [kind, interactionId, option] = data.split(':');
  if (!interactionId) return null;
  if (kind === 'ok') return { kind: 'approve', interactionId };
  if (kind === 'no') return { kind: 'deny', interactionId };
  if (kind === 'q' && option !== undefined && /^\d+$/.test(option))
    return { kind: 'option', interactionId, option: Number(option) };
  return null;
}

interface Question {
  question?: string;
  options?: Array<{ label?: string }>;
}

function questionsOf(interaction: InteractionRecord): Question[] {
  const input = interaction.request.input as { questions?: Question[] } | undefined;
  return input?.questions ?? [];
}

/** The option label a question button stands for, or null. */
export function optionLabel(interaction: InteractionRecord, option: number): string | null {
  return questionsOf(interaction)[0]?.options?.[option]?.label ?? null;
}

function requestLines(interaction: InteractionRecord): string[] {
  if (interaction.kind === 'question') {
    const questions = questionsOf(interaction);
    return questions.map((each) => `❓ ${each.question ?? ''}`);
  }
  const input = interaction.request.input as Record<string, unknown> | undefined;
  const shown = typeof input?.command === 'string' ? input.command : JSON.stringify(input ?? {});
  return [`🔐 ${interaction.toolName} wants to run:`, clip(shown)];
}

/** The card of a pending or answered interaction: buttons while it waits, the outcome once answered. */
export function renderInteraction(
  interaction: InteractionRecord,
  answer: Record<string, unknown> | null,
  by?: string,
): OutgoingMessage {
  const lines = requestLines(interaction);
  if (answer) {
    const outcome =
      answer.decision === 'approve'
        ? '✓ approved'
        : answer.decision === 'deny'
          ? '✗ denied'
          : `✓ answered: ${Object.values((answer.answers as Record<string, string>) ?? {}).join(', ')}`;
    lines.push('', by ? `${outcome} by ${by}` : outcome);
    return { text: lines.join('\n'), buttons: [] };
  }
  let buttons: ChatButton[][];
  const questions = questionsOf(interaction);
  if (interaction.kind === 'question') {
    const first = questions[0];
    buttons =
      questions.length === 1 && first?.options?.length
        ? [
            first.options.map((option, index) => ({
              label: option.label ?? `${index + 1}`,
              data: `q:${interaction.id}:${index}`,
            })),
          ]
        : [];
    if (buttons.length === 0) lines.push('', `answer with: agentd answer ${interaction.id}`);
  } else {
    buttons = [
      [
        { label: 'Approve', data: `ok:${interaction.id}` },
        { label: 'Deny', data: `no:${interaction.id}` },
      ],
    ];
  }
  return { text: lines.join('\n'), buttons };
}

/** A refusal as the person reads it: the stable code, and the message for their own mistakes. */
export function renderError(error: unknown): OutgoingMessage {
  if (error instanceof AgentdError)
    return { text: error.userError ? `⚠ ${error.code}: ${error.message}` : `⚠ ${error.code}` };
  return { text: '⚠ internal_error' };
}

/** What a command did, as text (its session's pending interactions come as cards of their own). */
export function renderCommand(result: Exclude<MessageResult, { kind: 'input' }>): OutgoingMessage {
  switch (result.command) {
    case 'help':
      return {
        text: [
          'Commands (start with // to send text that begins with /):',
          ...result.commands.map((command) => `${command.name} — ${command.description}`),
        ].join('\n'),
      };
    case 'status': {
      const status = result.status;
      if (!status) return { text: 'No session yet: the next message starts one.' };
      return {
        text: [
          `session ${status.session.id} (${status.session.state})`,
          `role ${status.session.role ?? '-'}`,
          `worker ${status.live ? status.live.state : 'none'}`,
          `waiting inputs ${status.waitingInputs}`,
          `pending approvals ${status.pendingInteractions}`,
          `spent $${status.costUsd.toFixed(4)}`,
          ...(status.budget ? [`budget reached: ${status.budget.scope} ${status.budget.target}`] : []),
        ].join('\n'),
      };
    }
    case 'stop':
      return { text: result.execution ? 'Stopping the worker.' : 'No worker is running.' };
    case 'new':
      return {
        text: result.archived
          ? 'Archived: the next message starts a fresh session.'
          : 'No session to archive.',
      };
    case 'compact':
      return { text: 'Compacting the session.' };
    case 'goal':
      return { text: 'Goal sent to claude.' };
    case 'pending':
      return {
        text:
          result.interactions.length === 0
            ? 'Nothing is waiting for an answer.'
            : `${result.interactions.length} waiting for an answer:`,
      };
  }
}
