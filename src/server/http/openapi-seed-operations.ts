import { errors, type Operation } from './openapi-operation.js';
import {
  seedFileSchemaSchema,
  seedRunListSchema,
  seedRunResponseSchema,
  startSeedBodySchema,
} from './seed-schemas.js';

export const seedOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/seeds',
    summary: 'Start a seed run: a goal with acceptance criteria that agentd verifies by running their checks',
    tag: 'seeds',
    body: startSeedBodySchema,
    responses: {
      201: { description: 'started', schema: seedRunResponseSchema },
      ...errors(400, 401, 403, 404, 413, 503),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds',
    summary: 'Seed runs, newest first',
    tag: 'seeds',
    responses: {
      200: { description: 'runs', schema: seedRunListSchema },
      ...errors(401),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds/schema',
    summary: "The seed file's JSON Schema",
    tag: 'seeds',
    responses: {
      200: { description: 'JSON Schema', schema: seedFileSchemaSchema },
      ...errors(401),
    },
  },
  {
    method: 'get',
    path: '/v1/seeds/{id}',
    summary: "A seed run: each criterion's state, evidence and last check, iterations, usage",
    tag: 'seeds',
    responses: { 200: { description: 'the run', schema: seedRunResponseSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/seeds/{id}/resume',
    summary: 'Continue an interrupted run where it stopped',
    tag: 'seeds',
    responses: {
      200: { description: 'resumed', schema: seedRunResponseSchema },
      ...errors(401, 404, 409, 503),
    },
  },
  {
    method: 'post',
    path: '/v1/seeds/{id}/stop',
    summary: "Stop the run's worker: the run is interrupted, and resumable",
    tag: 'seeds',
    responses: { 200: { description: 'stopping', schema: seedRunResponseSchema }, ...errors(401, 404) },
  },
];
