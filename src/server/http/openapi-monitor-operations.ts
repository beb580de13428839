import {
  goalBodySchema,
  goalResponseSchema,
  monitorEventsSchema,
  monitorListSchema,
  monitorResponseSchema,
  monitorStartBodySchema,
} from './monitor-schemas.js';
import { errors, type Operation } from './openapi-operation.js';

export const monitorOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/sessions/{id}/goal',
    summary: "Send claude's own /goal (or /goal clear); GET /v1/sessions/{id} shows the current goal",
    tag: 'goals',
    body: goalBodySchema,
    responses: {
      202: { description: 'the /goal input', schema: goalResponseSchema },
      ...errors(400, 401, 404, 409, 413, 503),
    },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/monitors',
    summary:
      'Start a monitor: a detached command whose stdout lines reach the session between turns (takes admin)',
    tag: 'monitors',
    body: monitorStartBodySchema,
    responses: {
      201: { description: 'the monitor, running', schema: monitorResponseSchema },
      ...errors(400, 401, 403, 404, 409, 413, [500, 'monitor_failed: its runner did not start']),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/monitors',
    summary: "The session's monitors, oldest first",
    tag: 'monitors',
    responses: { 200: { description: 'monitors', schema: monitorListSchema }, ...errors(401, 404) },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/monitors/{monitor}',
    summary: 'One monitor',
    tag: 'monitors',
    responses: { 200: { description: 'the monitor', schema: monitorResponseSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/monitors/{monitor}/stop',
    summary: 'Stop a monitor; answers once it has ended (stopping a stopped one changes nothing)',
    tag: 'monitors',
    responses: { 200: { description: 'the monitor', schema: monitorResponseSchema }, ...errors(401, 404) },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/monitors/{monitor}/events',
    summary: "The monitor's journal records: started, observations, stop request, end",
    tag: 'monitors',
    responses: { 200: { description: 'records', schema: monitorEventsSchema }, ...errors(401, 404) },
  },
];
