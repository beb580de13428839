import { z } from 'zod';
import { named } from './schemas.js';

export const startSeedBodySchema = named(
  'StartSeedRequest',
  z.strictObject({
    /** The seed: an object, or the text of a seed file (YAML or JSON; errors name the line). */
    seed: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
    /** An absolute directory; the seed's own `cwd` when it is absolute. */
    cwd: z.string().min(1).optional(),
    offline: z.boolean().optional(),
    launchId: z.string().min(1).max(200).optional(),
    organization: z.string().min(1).optional(),
  }),
);

/** A seed run as `runtime.seeds` reports it (docs/seeds.md has every field). */
const seedRunSchema = named(
  'SeedRun',
  z.looseObject({
    runId: z.string(),
    state: z.enum(['running', 'satisfied', 'unsatisfied', 'budget_exceeded', 'interrupted', 'failed']),
    reason: z.string(),
    iteration: z.number(),
    maxIterations: z.number(),
    criteria: z.array(
      z.looseObject({
        id: z.string(),
        description: z.string(),
        check: z.string().nullable(),
        state: z.enum(['pending', 'in_progress', 'blocked', 'claimed', 'verified', 'failed']),
        met: z.boolean(),
      }),
    ),
    costUsd: z.number(),
    durationMs: z.number(),
  }),
);

export const seedRunResponseSchema = named('SeedRunResponse', z.object({ run: seedRunSchema }));
export const seedRunListSchema = named('SeedRunList', z.object({ runs: z.array(seedRunSchema) }));
export const seedFileSchemaSchema = named(
  'SeedFileSchema',
  z.record(z.string(), z.unknown()),
  "the seed file's JSON Schema",
);
