import { z } from 'zod';
import { InvalidInputError } from '../errors/index.js';
import type { InteractionRecord } from '../store/store.js';

/** How far a decision reaches: this tool use, the rest of the session, or a rule of the role or organization. */
export const answerScopes = ['once', 'session', 'rule'] as const;
export type AnswerScope = (typeof answerScopes)[number];

const scoped = {
  scope: z.enum(answerScopes).optional(),
  /** The rule to remember (Claude Code syntax); @default the narrowest rule for this tool use */
  rule: z.string().min(1).max(1000).optional(),
  /** Where a `rule` scope's rule goes. @default 'role' */
  ruleFor: z.enum(['role', 'organization']).optional(),
};

const approvalAnswer = z.union([
  z
    .object({
      decision: z.literal('approve'),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      ...scoped,
    })
    .strict(),
  z.object({ decision: z.literal('deny'), reason: z.string().max(10_000).optional(), ...scoped }).strict(),
]);

const questionAnswer = z.object({ answers: z.record(z.string(), z.string()) }).strict();

/** An answer to an interaction: a decision on a tool use, or answers to Claude's questions. */
export type Answer =
  | ({ decision: 'approve'; updatedInput?: Record<string, unknown> } & ScopedAnswer)
  | ({ decision: 'deny'; reason?: string } & ScopedAnswer)
  | { answers: Record<string, string> };

/**
 * A decision that also holds for later tool uses: `session` (the same tool with input matching the
 * rule, for the rest of this session) or `rule` (a permission rule of the session's role, or of its
 * organization with `ruleFor: 'organization'`). @default scope 'once'
 */
export interface ScopedAnswer {
  scope?: AnswerScope;
  /** In Claude Code's syntax, like `Bash(npm test:*)`. @default the narrowest rule for this tool use */
  rule?: string;
  /** @default 'role' */
  ruleFor?: 'role' | 'organization';
}

/** Checks that the answer fits the interaction; a mismatch is `invalid_input` and changes nothing. */
export function validateAnswer(interaction: InteractionRecord, answer: unknown): Record<string, unknown> {
  const schema = interaction.kind === 'question' ? questionAnswer : approvalAnswer;
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    const expected =
      interaction.kind === 'question'
        ? '{ "answers": { "<question>": "<answer>" } }'
        : '{ "decision": "approve" } or { "decision": "deny", "reason": "…" }, each with an optional "scope": "once" | "session" | "rule" and "rule"';
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
