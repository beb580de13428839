import type { Hono } from 'hono';
import { z } from 'zod';
import { version } from '../../version.js';
import { automationOperations } from './openapi-automation-operations.js';
import { monitorOperations } from './openapi-monitor-operations.js';
import { errors, type Operation, type Schema } from './openapi-operation.js';
import { orgOperations } from './openapi-org-operations.js';
import { ruleOperations } from './openapi-rule-operations.js';
import { seedOperations } from './openapi-seed-operations.js';
import { messageResultSchema } from './org-schemas.js';
import {
  answerBodySchema,
  apiSchemas,
  createSessionBodySchema,
  createSessionResponseSchema,
  eventPageSchema,
  eventsQuerySchema,
  executionListSchema,
  executionResponseSchema,
  healthSchema,
  inputListSchema,
  interactionListSchema,
  interactionResponseSchema,
  interruptBodySchema,
  interruptResponseSchema,
  listInteractionsQuerySchema,
  listSessionsQuerySchema,
  overviewQuerySchema,
  readinessSchema,
  sendMessageBodySchema,
  sessionDetailsSchema,
  sessionListSchema,
  sessionOverviewListSchema,
  sessionResponseSchema,
} from './schemas.js';

const operations: Operation[] = [
  {
    method: 'post',
    path: '/v1/sessions',
    summary: 'Create a session; with a prompt its worker starts at once. Idempotent on launchId.',
    tag: 'sessions',
    body: createSessionBodySchema,
    responses: {
      201: { description: 'created', schema: createSessionResponseSchema },
      200: {
        description: 'the session of this launchId already existed',
        schema: createSessionResponseSchema,
      },
      ...errors(
        400,
        401,
        [403, 'forbidden: role.trigger on the named role'],
        [404, 'not_found: the role'],
        409,
        413,
        503,
      ),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions',
    summary: 'List sessions, newest first',
    tag: 'sessions',
    query: listSessionsQuerySchema,
    responses: { 200: { description: 'sessions', schema: sessionListSchema }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/v1/sessions/overview',
    summary:
      'Sessions with what each needs now (attention), pending interactions, live and last execution, last activity: the inbox',
    tag: 'sessions',
    query: overviewQuerySchema,
    responses: { 200: { description: 'overview', schema: sessionOverviewListSchema }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}',
    summary: 'A session with its executions, inputs, live execution and last cursor',
    tag: 'sessions',
    responses: { 200: { description: 'details', schema: sessionDetailsSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/archive',
    summary: 'Stop the worker and archive the session',
    tag: 'sessions',
    responses: { 200: { description: 'archived', schema: sessionResponseSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/messages',
    summary:
      'Send a message under the closed command protocol: text becomes an input (the same messageId and text returns the same input); /compact, /stop, /status, /new, /help run as commands.',
    tag: 'messages',
    body: sendMessageBodySchema,
    responses: {
      202: {
        description: 'text (or /compact) journaled; a worker delivers it: `{ kind, session, input }`',
        schema: messageResultSchema,
      },
      200: { description: 'a command ran: its result', schema: messageResultSchema },
      ...errors(
        [400, 'invalid_input, invalid_json, or unknown_command (nothing is journaled)'],
        401,
        402,
        404,
        409,
        413,
        503,
      ),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/inputs',
    summary: "The session's messages and their delivery states",
    tag: 'messages',
    responses: { 200: { description: 'inputs', schema: inputListSchema }, ...errors(401, 404) },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/events',
    summary:
      'A page of events after a cursor. With `Accept: text/event-stream`, a stream instead (see /events/stream).',
    tag: 'events',
    query: eventsQuerySchema,
    responses: {
      200: { description: 'a page of events', schema: eventPageSchema },
      ...errors(400, 401, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/events/stream',
    summary:
      'Server-sent events after `Last-Event-ID` (or `?after=`): `id` is the cursor, `event` the type, `data` the Event as JSON. `: ping` comments keep it open.',
    tag: 'events',
    query: eventsQuerySchema,
    responses: {
      200: { description: 'an event stream that follows the journal', contentType: 'text/event-stream' },
      ...errors(400, 401, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/interactions',
    summary: 'Approvals and questions, filtered by session and state',
    tag: 'interactions',
    query: listInteractionsQuerySchema,
    responses: { 200: { description: 'interactions', schema: interactionListSchema }, ...errors(400, 401) },
  },
  {
    method: 'post',
    path: '/v1/interactions/{id}/answer',
    summary: 'Answer a pending interaction, exactly once',
    tag: 'interactions',
    body: answerBodySchema,
    responses: {
      200: { description: 'answered', schema: interactionResponseSchema },
      ...errors(400, 401, 404, 409, 413),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/executions',
    summary: "The session's executions (worker lives), oldest first",
    tag: 'executions',
    responses: { 200: { description: 'executions', schema: executionListSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/stop',
    summary: 'Ask the live worker to stop; execution is null when none was live',
    tag: 'executions',
    responses: {
      202: { description: 'stopping', schema: executionResponseSchema },
      ...errors(401, 404),
    },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/resume',
    summary: 'Start a worker on a session that has none',
    tag: 'executions',
    responses: {
      201: { description: 'started', schema: executionResponseSchema },
      ...errors(401, 404, 409, 503),
    },
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/interrupt',
    summary: 'Interrupt the current turn; the session stays open',
    tag: 'executions',
    body: interruptBodySchema,
    responses: {
      202: { description: 'requested', schema: interruptResponseSchema },
      ...errors(400, 401, 404),
    },
  },
  {
    method: 'get',
    path: '/health',
    summary: 'Status, version, uptime, sessions, workers, pending interactions, store and model mode',
    tag: 'health',
    responses: {
      200: { description: 'healthy', schema: healthSchema },
      503: { description: 'the store is unreachable', schema: healthSchema },
      ...errors(401),
    },
  },
  {
    method: 'get',
    path: '/health/live',
    summary: 'Liveness: 200 while the process answers',
    tag: 'health',
    public: true,
    responses: { 200: { description: 'alive' } },
  },
  {
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: 503 at the maximum of live workers or when the store is unreachable',
    tag: 'health',
    public: true,
    responses: {
      200: { description: 'ready', schema: readinessSchema },
      503: { description: 'not ready', schema: readinessSchema },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    tag: 'health',
    responses: { 200: { description: 'text format 0.0.4', contentType: 'text/plain' }, ...errors(401) },
  },
];

function refTo(schema: Schema): Record<string, unknown> {
  const meta = apiSchemas.get(schema);
  if (!meta) throw new Error('every documented body is registered in apiSchemas');
  return { $ref: `#/components/schemas/${meta.id}` };
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function queryParameters(query: z.ZodObject) {
  return Object.entries(query.shape).map(([name, field]) => {
    const schema = withoutDialect(
      z.toJSONSchema(field as Schema, { io: 'output' }) as Record<string, unknown>,
    );
    const { description, ...rest } = schema;
    return { name, in: 'query', required: false, description, schema: rest };
  });
}

function operationObject(operation: Operation) {
  const parameters: Array<Record<string, unknown>> = [];
  for (const [, name] of operation.path.matchAll(/\{(\w+)\}/g))
    parameters.push({
      name,
      in: 'path',
      required: true,
      ...(name === 'key' ? { description: 'the channel key, URL-encoded (a2a%3Actx)' } : {}),
      schema: { type: 'string' },
    });
  if (operation.query) parameters.push(...queryParameters(operation.query));
  if (operation.path.endsWith('/events') || operation.path.endsWith('/events/stream'))
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'resume after this cursor (sent by EventSource on reconnect; wins over `after`)',
      schema: { type: 'integer', minimum: 0 },
    });
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => {
      const content = response.schema
        ? { 'application/json': { schema: refTo(response.schema) } }
        : response.contentType
          ? { [response.contentType]: { schema: { type: 'string' } } }
          : undefined;
      return [
        status,
        content ? { description: response.description, content } : { description: response.description },
      ];
    }),
  );
  return {
    summary: operation.summary,
    tags: [operation.tag],
    ...(operation.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: { required: true, content: { 'application/json': { schema: refTo(operation.body) } } },
        }
      : {}),
    ...(operation.rawBody
      ? {
          requestBody: {
            required: true,
            description: operation.rawBody.description,
            content: Object.fromEntries(
              operation.rawBody.contentTypes.map((type) => [
                type,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the REST API, built from the zod schemas the routes validate with. */
export function openApiDocument(): Record<string, unknown> {
  const generated = z.toJSONSchema(apiSchemas, { uri: (id) => `#/components/schemas/${id}` });
  const schemas = Object.fromEntries(
    Object.entries(generated.schemas).map(([id, schema]) => [
      id,
      withoutDialect(schema as Record<string, unknown>),
    ]),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of [
    ...operations,
    ...orgOperations,
    ...seedOperations,
    ...automationOperations,
    ...ruleOperations,
    ...monitorOperations,
  ]) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentd HTTP API',
      version,
      description:
        'A durable runtime and server for Claude agents. Errors are JSON `{ "error": { "code", "message" } }` with a stable code.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Required on every route except /health/live, /health/ready and the agent card whenever tokens are configured.',
        },
      },
      schemas,
    },
    paths,
  };
}

export function registerOpenApiRoute(app: Hono): void {
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= openApiDocument();
    return c.json(document);
  });
}
