import { z } from 'zod';
import { InvalidInputError } from '../errors/index.js';
import type { InteractionRecord } from '../store/store.js';

const approvalAnswer = z.union([
  z
    .object({ decision: z.literal('approve'), updatedInput: z.record(z.string(), z.unknown()).optional() })
    .strict(),
  z.object({ decision: z.literal('deny'), reason: z.string().max(10_000).optional() }).strict(),
]);

const questionAnswer = z.object({ answers: z.record(z.string(), z.string()) }).strict();

/** An answer to an interaction: a decision on a tool use, or answers to Claude's questions. */
export type Answer =
  | { decision: 'approve'; updatedInput?: Record<string, unknown> }
  | { decision: 'deny'; reason?: string }
  | { answers: Record<string, string> };

/** Checks that the answer fits the interaction; a mismatch is `invalid_input` and changes nothing. */
export function validateAnswer(interaction: InteractionRecord, answer: unknown): Record<string, unknown> {
  const schema = interaction.kind === 'question' ? questionAnswer : approvalAnswer;
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    const expected =
      interaction.kind === 'question'
        ? '{ "answers": { "<question>": "<answer>" } }'
        : '{ "decision": "approve" } or { "decision": "deny", "reason": "…" }';
    throw new InvalidInputError(`answer does not fit a ${interaction.kind}: expected ${expected}`, {
      issues: parsed.error.issues.map((issue) => issue.message),
    });
  }
  const data = parsed.data as Record<string, unknown>;
  // `agentd answer ID "text"` gives one unnamed answer: it answers the only question asked.
  const answers = data.answers as Record<string, string> | undefined;
  const questions = interaction.request.input as { questions?: Array<{ question?: string }> } | undefined;
  if (answers && '' in answers && questions?.questions?.length === 1 && questions.questions[0]?.question) {
    const { '': only, ...rest } = answers;
    return { answers: { ...rest, [questions.questions[0].question]: only ?? '' } };
  }
  return data;
}
