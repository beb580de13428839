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
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { callContext, isLegacyVersion, versionHeader } from './call-context.js';
import { sseResponse } from './sse.js';

const jsonTypes = new Set(['application/json', 'application/a2a+json']);
const responseHeaders = { 'Content-Type': 'application/a2a+json' };

type Route = (
  request: { c: Context; context: ServerCallContext; body: unknown; query: Record<string, string> },
  match: string[],
) => Promise<Response>;

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new RequestMalformedError(`${name} must be a non-negative integer`);
  return parsed;
}

function errorResponse(error: unknown): Response {
  const status = restStatusFor(error);
  return new Response(JSON.stringify(toRestErrorBody(error, status)), { status, headers: responseHeaders });
}

/**
 * The HTTP+JSON binding (v1.0) under `prefix`, with the SDK's codecs and request handler: the
 * routes of the SDK's Express `restHandler`, on Hono. Requests without `A2A-Version` are taken as
 * 1.0; v0.3 clients are served by the JSON-RPC binding.
 */
export function registerRestRoutes(
  app: Hono,
  prefix: string,
  handler: A2ARequestHandler,
  options: { heartbeatMs?: number } = {},
): void {
  const json = (c: Context, status: ContentfulStatusCode, body: unknown) =>
    c.body(JSON.stringify(body), status, responseHeaders);
  const stream = async (iterable: AsyncIterable<StreamResponse>) => {
    const iterator = iterable[Symbol.asyncIterator]();
    let first: IteratorResult<StreamResponse>;
    try {
      first = await iterator.next();
    } catch (error) {
      return errorResponse(error);
    }
    return sseResponse({
      first,
      iterator,
      encode: (item) => StreamResponse.toJSON(item),
      encodeError: (error) => toRestErrorBody(error, restStatusFor(error)),
      ...options,
    });
  };
  const taskId = (match: string[]) => decodeURIComponent(match[1] ?? '');

  const routes: Array<[string, RegExp, Route]> = [
    [
      'POST',
      /^\/message:send$/,
      async ({ c, context, body }) => {
        const result = await handler.sendMessage(SendMessageRequest.fromJSON(body ?? {}), context);
        const payload =
          'messageId' in result
            ? { $case: 'message' as const, value: result }
            : { $case: 'task' as const, value: result };
        return json(c, 200, SendMessageResponse.toJSON({ payload }));
      },
    ],
    [
      'POST',
      /^\/message:stream$/,
      async ({ context, body }) =>
        stream(handler.sendMessageStream(SendMessageRequest.fromJSON(body ?? {}), context)),
    ],
    [
      'GET',
      /^\/tasks\/([^/]+):subscribe$/,
      async ({ context }, m) => stream(handler.resubscribe({ tenant: '', id: taskId(m) }, context)),
    ],
    [
      'POST',
      /^\/tasks\/([^/]+):subscribe$/,
      async ({ context }, m) => stream(handler.resubscribe({ tenant: '', id: taskId(m) }, context)),
    ],
    [
      'POST',
      /^\/tasks\/([^/]+):cancel$/,
      async ({ c, context }, m) =>
        json(
          c,
          200,
          Task.toJSON(await handler.cancelTask({ tenant: '', id: taskId(m), metadata: {} }, context)),
        ),
    ],
    [
      'GET',
      /^\/tasks\/([^/:]+)$/,
      async ({ c, context, query }, m) => {
        const historyLength = integer(query.historyLength, 'historyLength');
        const task = await handler.getTask(
          { tenant: '', id: taskId(m), ...(historyLength !== undefined ? { historyLength } : {}) },
          context,
        );
        return json(c, 200, Task.toJSON(task));
      },
    ],
    [
      'GET',
      /^\/tasks$/,
      async ({ c, context, query }) => {
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
        const result = await handler.listTasks(request, context);
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
      },
    ],
    [
      'POST',
      /^\/tasks\/([^/]+)\/pushNotificationConfigs$/,
      async ({ c, context, body }, m) => {
        const config = TaskPushNotificationConfig.fromJSON({ ...(body as object), taskId: taskId(m) });
        const created = await handler.createTaskPushNotificationConfig(config, context);
        return json(c, 201, TaskPushNotificationConfig.toJSON(created));
      },
    ],
    [
      'GET',
      /^\/tasks\/([^/]+)\/pushNotificationConfigs$/,
      async ({ c, context }, m) => {
        const list = await handler.listTaskPushNotificationConfigs(
          { tenant: '', taskId: taskId(m), pageSize: 0, pageToken: '' },
          context,
        );
        return json(c, 200, ListTaskPushNotificationConfigsResponse.toJSON(list));
      },
    ],
    [
      'GET',
      /^\/tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/,
      async ({ c, context }, m) => {
        const config = await handler.getTaskPushNotificationConfig(
          { tenant: '', taskId: taskId(m), id: decodeURIComponent(m[2] ?? '') },
          context,
        );
        return json(c, 200, TaskPushNotificationConfig.toJSON(config));
      },
    ],
    [
      'DELETE',
      /^\/tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/,
      async ({ c, context }, m) => {
        await handler.deleteTaskPushNotificationConfig(
          { tenant: '', taskId: taskId(m), id: decodeURIComponent(m[2] ?? '') },
          context,
        );
        return c.body(null, 204);
      },
    ],
    [
      'GET',
      /^\/extendedAgentCard$/,
      async ({ c, context }) =>
        json(
          c,
          200,
          AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)),
        ),
    ],
  ];

  app.all(`${prefix}/*`, async (c) => {
    const path = c.req.path.slice(prefix.length);
    const found = routes
      .filter(([method]) => method === c.req.method)
      .map(([, pattern, route]) => [pattern.exec(path), route] as const)
      .find(([match]) => match !== null);
    try {
      if (!found)
        return c.json(
          {
            error: {
              code: 404,
              status: 'NOT_FOUND',
              message: `no A2A route for ${c.req.method} ${c.req.path}`,
              details: [],
            },
          },
          404,
        );
      const header = c.req.header(versionHeader);
      if (header && isLegacyVersion(header))
        throw new VersionNotSupportedError(
          `A2A ${header} over HTTP+JSON is not served here; use the JSON-RPC binding for v0.3`,
        );
      const context = callContext(c, { requestedVersion: header ?? '1.0', legacy: false });
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
      let body: unknown;
      if (c.req.method === 'POST') {
        const contentType = c.req.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
        if (contentType && !jsonTypes.has(contentType))
          throw new ContentTypeNotSupportedError(
            `Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`,
          );
        const text = await c.req.text();
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          throw new RequestMalformedError('Invalid JSON payload.');
        }
      }
      const [match, route] = found;
      return await route({ c, context, body, query: c.req.query() }, [...match!]);
    } catch (error) {
      return errorResponse(error);
    }
  });
}
