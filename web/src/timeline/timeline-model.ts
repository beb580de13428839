import type { DeliveryState, Input, JournalEvent } from '../api/types.js';

/** One row of a session's timeline, made from one or more journal events. */
export type TimelineItem =
  | { kind: 'input'; key: string; text: string; messageId: string; state: DeliveryState; at: number }
  | { kind: 'assistant'; key: string; text: string; streaming: boolean; at: number }
  | { kind: 'thinking'; key: string; text: string; at: number }
  | {
      kind: 'tool';
      key: string;
      name: string;
      detail: string;
      input: Record<string, unknown>;
      result: { content: string; isError: boolean } | null;
      at: number;
    }
  | { kind: 'error'; key: string; code: string; message: string; at: number }
  | {
      kind: 'turn';
      key: string;
      subtype: string;
      isError: boolean;
      costUsd: number;
      inputTokens: number;
      outputTokens: number;
      durationMs: number;
      at: number;
    }
  | { kind: 'interaction'; key: string; interactionId: string; toolName: string; detail: string; at: number }
  | {
      kind: 'answer';
      key: string;
      interactionId: string;
      summary: string;
      answeredBy: string | null;
      at: number;
    }
  | { kind: 'status'; key: string; text: string; tone: 'info' | 'bad'; at: number };

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** What an answer said, in a few words. */
export function answerSummary(answer: Record<string, unknown>): string {
  if (answer.decision === 'approve') return 'approved';
  if (answer.decision === 'deny') return answer.reason ? `denied: ${text(answer.reason)}` : 'denied';
  const answers = record(answer.answers);
  return `answered ${Object.entries(answers)
    .map(([question, value]) => `${question} → ${text(value)}`)
    .join('; ')}`;
}

/**
 * Folds journal events into timeline rows as they arrive: text deltas grow one assistant row until
 * the whole message replaces it, a tool result folds into its call, an input's delivery state follows
 * its events. Rows that change are replaced by new objects, so a view can tell what to draw again.
 */
export class TimelineModel {
  readonly items: TimelineItem[] = [];
  /** Grows with every change: a cheap way to know the rows changed. */
  version = 0;
  lastCursor = 0;
  private readonly inputRows = new Map<string, number>();
  private readonly toolRows = new Map<string, number>();
  private streamingRow: number | null = null;

  /** Delivery states the server already knows (the session's inputs), before any event says so. */
  constructor(private readonly knownInputs: ReadonlyMap<string, Input> = new Map()) {}

  apply(events: readonly JournalEvent[]): void {
    for (const event of events) {
      this.applyOne(event);
      this.lastCursor = event.cursor;
    }
    this.version++;
  }

  private push(item: TimelineItem): number {
    this.items.push(item);
    return this.items.length - 1;
  }

  private replace(index: number, item: TimelineItem): void {
    this.items[index] = item;
  }

  private setInputState(inputId: string, state: DeliveryState): void {
    const index = this.inputRows.get(inputId);
    const row = index === undefined ? undefined : this.items[index];
    if (index !== undefined && row?.kind === 'input') this.replace(index, { ...row, state });
  }

  private applyOne(event: JournalEvent): void {
    const { data } = event;
    const key = String(event.cursor);
    const at = event.createdAt;
    switch (event.type) {
      case 'input.accepted': {
        const inputId = text(data.inputId);
        const known = this.knownInputs.get(inputId);
        const index = this.push({
          kind: 'input',
          key,
          text: text(data.text),
          messageId: text(data.messageId),
          state: known?.state === 'uncertain' ? 'uncertain' : 'accepted',
          at,
        });
        this.inputRows.set(inputId, index);
        return;
      }
      case 'input.delivered':
        this.setInputState(text(data.inputId), 'delivered');
        return;
      case 'agent.text_delta': {
        const row = this.streamingRow === null ? undefined : this.items[this.streamingRow];
        if (this.streamingRow !== null && row?.kind === 'assistant')
          this.replace(this.streamingRow, { ...row, text: row.text + text(data.text) });
        else
          this.streamingRow = this.push({
            kind: 'assistant',
            key,
            text: text(data.text),
            streaming: true,
            at,
          });
        return;
      }
      case 'agent.message': {
        const item: TimelineItem = { kind: 'assistant', key, text: text(data.text), streaming: false, at };
        if (this.streamingRow !== null)
          this.replace(this.streamingRow, { ...item, key: this.items[this.streamingRow]!.key });
        else this.push(item);
        this.streamingRow = null;
        return;
      }
      case 'agent.thinking':
        this.push({ kind: 'thinking', key, text: text(data.thinking), at });
        return;
      case 'agent.tool_call': {
        const index = this.push({
          kind: 'tool',
          key,
          name: text(data.name),
          detail: text(data.detail) || text(data.name),
          input: record(data.input),
          result: null,
          at,
        });
        this.toolRows.set(text(data.toolUseId), index);
        return;
      }
      case 'agent.tool_result': {
        const index = this.toolRows.get(text(data.toolUseId));
        const row = index === undefined ? undefined : this.items[index];
        const result = { content: text(data.content), isError: data.isError === true };
        if (index !== undefined && row?.kind === 'tool') this.replace(index, { ...row, result });
        else this.push({ kind: 'tool', key, name: 'tool', detail: 'result', input: {}, result, at });
        return;
      }
      case 'agent.error': {
        const error = record(data.error);
        this.push({
          kind: 'error',
          key,
          code: text(error.code) || 'error',
          message: text(error.message),
          at,
        });
        return;
      }
      case 'agent.turn.completed': {
        this.streamingRow = null;
        const usage = record(data.usage);
        this.push({
          kind: 'turn',
          key,
          subtype: text(data.subtype),
          isError: data.isError === true,
          costUsd: number(data.costUsd),
          inputTokens: number(usage.input_tokens ?? usage.inputTokens),
          outputTokens: number(usage.output_tokens ?? usage.outputTokens),
          durationMs: number(data.durationMs),
          at,
        });
        return;
      }
      case 'interaction.requested': {
        const interaction = record(data.interaction);
        const input = record(record(interaction.request).input);
        this.push({
          kind: 'interaction',
          key,
          interactionId: text(interaction.id),
          toolName: text(interaction.toolName),
          detail: text(input.command) || text(input.file_path) || text(interaction.kind),
          at,
        });
        return;
      }
      case 'interaction.answered':
        this.push({
          kind: 'answer',
          key,
          interactionId: text(data.interactionId),
          summary: answerSummary(record(data.answer)),
          answeredBy: typeof data.answeredBy === 'string' ? data.answeredBy : null,
          at,
        });
        return;
      case 'execution.started':
        this.push({ kind: 'status', key, text: 'worker started', tone: 'info', at });
        return;
      case 'execution.stopped':
        this.push({ kind: 'status', key, text: `worker stopped (${text(data.reason)})`, tone: 'info', at });
        return;
      case 'execution.failed': {
        const error = record(data.error);
        for (const inputId of Array.isArray(data.uncertainInputIds) ? data.uncertainInputIds : [])
          this.setInputState(String(inputId), 'uncertain');
        this.push({
          kind: 'error',
          key,
          code: text(error.code) || 'failed',
          message: text(error.message),
          at,
        });
        return;
      }
      case 'control.interrupt':
        this.push({ kind: 'status', key, text: `interrupt: ${text(data.reason)}`, tone: 'info', at });
        return;
      case 'session.archived':
        this.push({ kind: 'status', key, text: `session archived (${text(data.reason)})`, tone: 'info', at });
        return;
      case 'budget.exceeded':
        this.push({
          kind: 'error',
          key,
          code: 'budget_exceeded',
          message: `${text(data.scope)} ${text(data.target)}: spent $${number(data.spentUsd).toFixed(4)} of $${number(data.limitUsd).toFixed(2)}`,
          at,
        });
        return;
      default:
        // claude.message, work.settled, session.started, retries: kept in the journal, not drawn.
        return;
    }
  }
}
