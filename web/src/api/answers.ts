import { ApiError, get, post } from './client.js';
import type { Interaction, JournalEvent } from './types.js';

export type Answer =
  | { decision: 'approve' }
  | { decision: 'deny'; reason?: string }
  | { answers: Record<string, string> };

export interface AnsweredElsewhere {
  answer: Record<string, unknown>;
  answeredBy: string | null;
  answeredAt: number | null;
}

/** Who answered an interaction and how, from the session's journal (its `interaction.answered`). */
export async function findAnswer(interaction: Interaction): Promise<AnsweredElsewhere | null> {
  for (let after = 0; ; ) {
    const page = await get<{ events: JournalEvent[]; nextCursor: number; hasMore: boolean }>(
      `/v1/sessions/${encodeURIComponent(interaction.sessionId)}/events?after=${after}&limit=1000`,
    );
    const answered = page.events.find(
      (event) => event.type === 'interaction.answered' && event.data.interactionId === interaction.id,
    );
    if (answered)
      return {
        answer: answered.data.answer as Record<string, unknown>,
        answeredBy: typeof answered.data.answeredBy === 'string' ? answered.data.answeredBy : null,
        answeredAt: answered.createdAt,
      };
    if (!page.hasMore) return null;
    after = page.nextCursor;
  }
}

/**
 * Answers through the API, as the CLI's `approve`/`deny`/`answer` do. An interaction that someone
 * else answered first is a 409: the answer that won is looked up and returned instead.
 */
export async function answerInteraction(
  interaction: Interaction,
  answer: Answer,
): Promise<{ ok: true } | { ok: false; elsewhere: AnsweredElsewhere | null }> {
  try {
    await post(`/v1/interactions/${encodeURIComponent(interaction.id)}/answer`, answer);
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'conflict')
      return { ok: false, elsewhere: await findAnswer(interaction) };
    throw error;
  }
}
