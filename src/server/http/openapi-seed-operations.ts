import { z } from 'zod';
import { errors, type Operation } from './openapi-operation.js';
import { startSeedBodySchema } from './seeds.js';

/** A seed run as `runtime.seeds` reports it (docs/seeds.md has every field). */
const seedRunSchema = z
  .looseObject({
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
  })
  .meta({ id: 'SeedRun' });
const seedRunResponse = z.object({ run: seedRunSchema });

export const seedOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/seeds',
    summary: 'Start a seed run: a goal with acceptance criteria that agentd verifies by running their checks',
    tag: 'seeds',
    body: startSeedBodySchema,
    responses: {
      201: { description: 'started', schema: seedRunResponse },
      ...errors(400, 401, 403, 404, 413, 503),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds',
    summary: 'Seed runs, newest first',
    tag: 'seeds',
    responses: {
      200: { description: 'runs', schema: z.object({ runs: z.array(seedRunSchema) }) },
      ...errors(401),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds/schema',
    summary: "The seed file's JSON Schema",
    tag: 'seeds',
    responses: {
      200: { description: 'JSON Schema', schema: z.record(z.string(), z.unknown()) },
      ...errors(401),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds/{id}',
    summary: "A seed run: each criterion's state, evidence and last check, iterations, usage",
    tag: 'seeds',
    responses: { 200: { description: 'the run', schema: seedRunResponse }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/seeds/{id}/resume',
    summary: 'Continue an interrupted run where it stopped',
    tag: 'seeds',
    responses: { 200: { description: 'resumed', schema: seedRunResponse }, ...errors(401, 404, 409, 503) },
  },
  {
    method: 'post',
    path: '/v1/seeds/{id}/stop',
    summary: "Stop the run's worker: the run is interrupted, and resumable",
    tag: 'seeds',
    responses: { 200: { description: 'stopping', schema: seedRunResponse }, ...errors(401, 404) },
  },
];
