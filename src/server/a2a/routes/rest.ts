import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { type A2ARequestHandler, type ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { restErrorResponse, toA2aError } from '../errors.js';
import { callContext, isLegacyVersion, versionHeader } from './call-context.js';
import { sseResponse } from './sse.js';

const jsonTypes = new Set(['application/json', 'application/a2a+json']);
const responseHeaders = { 'Content-Type': 'application/a2a+json' };

/** What the middleware hands each route: the SDK's call context and the parsed JSON body. */
type RestEnv = { Variables: { context: ServerCallContext; body: unknown } };

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new RequestMalformedError(`${name} must be a non-negative integer`);
  return parsed;
}

function json(c: Context, status: ContentfulStatusCode, body: unknown): Response {
  return c.body(JSON.stringify(body), status, responseHeaders);
}

/**
 * The task id of a `/tasks/{id}:verb` path: Hono takes `:` only at a segment's start, so the route
 * matches the whole segment (`{id}:cancel`) and the verb is cut off here.
 */
function taskIdOf(c: Context, verb: string): string {
  return (c.req.param('task') ?? '').slice(0, -verb.length);
}

/**
 * The HTTP+JSON binding (v1.0) under `prefix`, with the SDK's codecs and request handler: the
 * routes of the SDK's Express `restHandler`, as Hono routes. Requests without `A2A-Version` are
 * taken as 1.0; v0.3 clients are served by the JSON-RPC binding.
 */
export function registerRestRoutes(
  app: Hono,
  prefix: string,
  handler: A2ARequestHandler,
  options: { heartbeatMs?: number } = {},
): void {
  const stream = async (iterable: AsyncIterable<StreamResponse>) => {
    const iterator = iterable[Symbol.asyncIterator]();
    let first: IteratorResult<StreamResponse>;
    try {
      first = await iterator.next();
    } catch (error) {
      // Nothing was sent yet: the failure is the response, with its status (see docs/a2a.md).
      return restErrorResponse(error, responseHeaders);
    }
    return sseResponse({
      first,
      iterator,
      encode: (item) => StreamResponse.toJSON(item),
      encodeError: (error) => {
        const a2a = toA2aError(error);
        return toRestErrorBody(a2a, restStatusFor(a2a));
      },
      ...options,
    });
  };

  const rest = new Hono<RestEnv>();
  rest.onError((error) => restErrorResponse(error, responseHeaders));
  rest.use('*', async (c, next) => {
    const header = c.req.header(versionHeader);
    if (header && isLegacyVersion(header))
      throw new VersionNotSupportedError(
        `A2A ${header} over HTTP+JSON is not served here; use the JSON-RPC binding for v0.3`,
      );
    const context = callContext(c, { requestedVersion: header ?? '1.0', legacy: false });
    validateVersion(context.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
    c.set('context', context);
    if (c.req.method === 'POST') {
      const contentType = c.req.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
      if (contentType && !jsonTypes.has(contentType))
        throw new ContentTypeNotSupportedError(
          `Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`,
        );
      const text = await c.req.text();
      try {
        c.set('body', text ? JSON.parse(text) : undefined);
      } catch {
        throw new RequestMalformedError('Invalid JSON payload.');
      }
    }
    await next();
  });

  rest.post('/message:send', async (c) => {
    const request = SendMessageRequest.fromJSON(c.get('body') ?? {});
    const result = await handler.sendMessage(request, c.get('context'));
    const payload =
      'messageId' in result
        ? { $case: 'message' as const, value: result }
        : { $case: 'task' as const, value: result };
    return json(c, 200, SendMessageResponse.toJSON({ payload }));
  });

  rest.post('/message:stream', (c) =>
    stream(handler.sendMessageStream(SendMessageRequest.fromJSON(c.get('body') ?? {}), c.get('context'))),
  );

  rest.on(['GET', 'POST'], '/tasks/:task{[^/]+:subscribe}', (c) =>
    stream(handler.resubscribe({ tenant: '', id: taskIdOf(c, ':subscribe') }, c.get('context'))),
  );

  rest.post('/tasks/:task{[^/]+:cancel}', async (c) => {
    const request = { tenant: '', id: taskIdOf(c, ':cancel'), metadata: {} };
    return json(c, 200, Task.toJSON(await handler.cancelTask(request, c.get('context'))));
  });

  rest.get('/tasks/:id{[^/:]+}', async (c) => {
    const historyLength = integer(c.req.query('historyLength'), 'historyLength');
    const request = {
      tenant: '',
      id: c.req.param('id'),
      ...(historyLength !== undefined ? { historyLength } : {}),
    };
    return json(c, 200, Task.toJSON(await handler.getTask(request, c.get('context'))));
  });

  rest.get('/tasks', async (c) => {
    const query = c.req.query();
    const includeArtifacts = query.includeArtifacts === 'true';
    const pageSize = integer(query.pageSize, 'pageSize');
    const historyLength = integer(query.historyLength, 'historyLength');
    const status = query.status
      ? taskStateFromJSON(Number.isNaN(Number(query.status)) ? query.status : Number(query.status))
      : TaskState.TASK_STATE_UNSPECIFIED;
    const request: ListTasksRequest = {
      tenant: '',
      contextId: query.contextId ?? '',
      status,
      pageToken: query.pageToken ?? '',
      statusTimestampAfter: query.statusTimestampAfter || undefined,
      includeArtifacts,
      ...(pageSize !== undefined ? { pageSize } : {}),
      ...(historyLength !== undefined ? { historyLength } : {}),
    };
    const result = await handler.listTasks(request, c.get('context'));
    const encoded = ListTasksResponse.toJSON(result) as Record<string, unknown>;
    const tasks = ((encoded.tasks as Array<Record<string, unknown>> | undefined) ?? []).map((task) =>
      includeArtifacts && task.artifacts === undefined ? { ...task, artifacts: [] } : task,
    );
    return json(c, 200, {
      ...encoded,
      tasks,
      nextPageToken: encoded.nextPageToken ?? '',
      pageSize: encoded.pageSize ?? 0,
      totalSize: encoded.totalSize ?? 0,
    });
  });

  rest.post('/tasks/:id/pushNotificationConfigs', async (c) => {
    const config = TaskPushNotificationConfig.fromJSON({
      ...(c.get('body') as object),
      taskId: c.req.param('id'),
    });
    const created = await handler.createTaskPushNotificationConfig(config, c.get('context'));
    return json(c, 201, TaskPushNotificationConfig.toJSON(created));
  });

  rest.get('/tasks/:id/pushNotificationConfigs', async (c) => {
    const request = { tenant: '', taskId: c.req.param('id'), pageSize: 0, pageToken: '' };
    const list = await handler.listTaskPushNotificationConfigs(request, c.get('context'));
    return json(c, 200, ListTaskPushNotificationConfigsResponse.toJSON(list));
  });

  rest.get('/tasks/:id/pushNotificationConfigs/:configId', async (c) => {
    const request = { tenant: '', taskId: c.req.param('id'), id: c.req.param('configId') };
    const config = await handler.getTaskPushNotificationConfig(request, c.get('context'));
    return json(c, 200, TaskPushNotificationConfig.toJSON(config));
  });

  rest.delete('/tasks/:id/pushNotificationConfigs/:configId', async (c) => {
    const request = { tenant: '', taskId: c.req.param('id'), id: c.req.param('configId') };
    await handler.deleteTaskPushNotificationConfig(request, c.get('context'));
    return c.body(null, 204);
  });

  rest.get('/extendedAgentCard', async (c) =>
    json(
      c,
      200,
      AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, c.get('context'))),
    ),
  );

  rest.all('*', (c) =>
    json(c, 404, {
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: `no A2A route for ${c.req.method} ${c.req.path}`,
        details: [],
      },
    }),
  );

  app.route(prefix, rest);
}
