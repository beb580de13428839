import type { InteractionRecord } from '../store/store.js';

/**
 * Events that agentd itself writes to a session's journal, beside the backend's `AgentEvent`s
 * (which are journaled under their own `type`, with the native message kept in `raw`).
 */
export type RuntimeEvent =
  | { type: 'input.accepted'; inputId: string; messageId: string; text: string; traceparent?: string }
  | { type: 'execution.started'; executionId: string; epoch: number; pid: number }
  | { type: 'execution.stopped'; executionId: string; reason: string }
  | {
      type: 'execution.failed';
      executionId: string;
      error: { code: string; message: string };
      uncertainInputIds: string[];
    }
  | { type: 'interaction.requested'; interaction: InteractionRecord }
  | { type: 'interaction.answered'; interactionId: string; answer: Record<string, unknown> }
  | { type: 'work.settled'; executionId: string }
  /** A request for the live worker, read from the journal (works across nodes). */
  | { type: 'control.interrupt'; reason: string };

export function journalEntry(
  event: { type: string } & Record<string, unknown>,
  executionId: string | null = null,
) {
  const { type, ...data } = event;
  return { type, data, executionId };
}
