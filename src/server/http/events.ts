import type { Context, Hono } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { JournalRecord } from '../../journal/journal-event.js';
import type { RouteContext } from './context.js';
import { toErrorResponse } from './errors.js';
import { eventsQuerySchema } from './schemas.js';
import { parseWith, readQuery } from './validate.js';

const defaultPageSize = 100;
const cursorSchema = z.coerce.number().int().min(0);

function wantsStream(context: Context): boolean {
  return context.req.header('accept')?.includes('text/event-stream') ?? false;
}

/** A reconnecting client's `Last-Event-ID` wins over `?after=`: it is where the client really is. */
function startCursor(context: Context, after: number | undefined): number {
  const lastEventId = context.req.header('last-event-id');
  if (lastEventId !== undefined && lastEventId.trim() !== '')
    return parseWith(cursorSchema, lastEventId.trim(), 'Last-Event-ID header');
  return after ?? 0;
}

async function eventPage(context: Context, routes: RouteContext): Promise<Response> {
  const query = readQuery(context, eventsQuerySchema);
  const after = query.after ?? 0;
  const limit = query.limit ?? defaultPageSize;
  const events: JournalRecord[] = [];
  let hasMore = false;
  for await (const event of routes.runtime.events(context.req.param('id') ?? '', { after })) {
    if (events.length === limit) {
      hasMore = true;
      break;
    }
    events.push(event);
  }
  return context.json({ events, nextCursor: events.at(-1)?.cursor ?? after, hasMore });
}

/**
 * Server-sent events: `id` is the cursor, `event` the type, `data` the whole record as JSON. The
 * stream follows the journal until the client goes or the server closes, with `: ping` comments
 * in between so proxies keep the connection open.
 */
async function eventStream(context: Context, routes: RouteContext): Promise<Response> {
  const { runtime } = routes;
  const sessionId = context.req.param('id') ?? '';
  const after = startCursor(context, readQuery(context, eventsQuerySchema).after);
  // An unknown session is a JSON 404, before any stream is opened.
  await runtime.listExecutions(sessionId);
  context.header('X-Accel-Buffering', 'no');
  return streamSSE(context, async (stream: SSEStreamingApi) => {
    const controller = new AbortController();
    const abort = () => controller.abort();
    stream.onAbort(abort);
    context.req.raw.signal.addEventListener('abort', abort);
    routes.closing.addEventListener('abort', abort);
    const heartbeat = setInterval(() => {
      stream.write(': ping\n\n').catch(abort);
    }, routes.heartbeatMs);
    try {
      await stream.write(': connected\n\n');
      for await (const event of runtime.events(sessionId, {
        after,
        follow: true,
        signal: controller.signal,
      })) {
        await stream.writeSSE({ id: String(event.cursor), event: event.type, data: JSON.stringify(event) });
      }
    } catch (error) {
      if (!controller.signal.aborted) {
        routes.log?.(`event stream of ${sessionId} failed: ${String(error)}`);
        const { body } = toErrorResponse(error);
        await stream.writeSSE({ event: 'error', data: JSON.stringify(body) }).catch(() => {});
      }
    } finally {
      clearInterval(heartbeat);
      context.req.raw.signal.removeEventListener('abort', abort);
      routes.closing.removeEventListener('abort', abort);
    }
  });
}

export function registerEventRoutes(app: Hono, context: RouteContext): void {
  app.get('/v1/sessions/:id/events', (c) =>
    wantsStream(c) ? eventStream(c, context) : eventPage(c, context),
  );
  app.get('/v1/sessions/:id/events/stream', (c) => eventStream(c, context));
}
