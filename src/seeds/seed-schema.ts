import { z } from 'zod';

/** A criterion id: short, stable, safe in a message id and a file name. */
const criterionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'expected letters, digits, ".", "_" or "-" (at most 64)');

export const criterionSchema = z.strictObject({
  id: criterionId,
  description: z.string().min(1),
  /** A shell command agentd runs itself, in the seed's working directory, after each turn. */
  check: z.string().min(1).optional(),
  /** The exit code that means the check passed. @default 0 */
  expect: z.number().int().min(0).max(255).optional(),
  /** Seconds before the check is killed and counted as failed. @default 120 */
  timeout: z.number().positive().max(86_400).optional(),
});

export const seedSchema = z
  .strictObject({
    goal: z.string().min(1),
    criteria: z.array(criterionSchema).min(1, 'expected at least one criterion'),
    constraints: z.array(z.string().min(1)).optional(),
    /** A role of the organization; its prompt, tools and model come first. */
    role: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    /** Tools that run without asking. @default Read, Write, Edit, Glob, Grep, Bash */
    tools: z.array(z.string().min(1)).optional(),
    mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    /** Where the agent works and the checks run; relative to the seed file. @default the seed file's directory */
    cwd: z.string().min(1).optional(),
    /** The run stops (`budget_exceeded`) once its cost reaches this. */
    budgetUsd: z.number().positive().optional(),
    /** Turns of work, each followed by the checks. @default 3 */
    maxIterations: z.number().int().min(1).max(50).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((seed, context) => {
    const seen = new Set<string>();
    seed.criteria.forEach((criterion, index) => {
      if (seen.has(criterion.id))
        context.addIssue({
          code: 'custom',
          path: ['criteria', index, 'id'],
          message: `duplicate criterion id ${criterion.id}`,
        });
      seen.add(criterion.id);
    });
  });

export type SeedCriterion = z.infer<typeof criterionSchema>;
export type Seed = z.infer<typeof seedSchema>;

/** The seed file's JSON Schema (draft 2020-12), published as docs/seed.schema.json. */
export function seedJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(seedSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
