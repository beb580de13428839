import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { createSessionBodySchema, listSessionsQuerySchema, overviewQuerySchema } from './schemas.js';
import { traceContextOf } from './trace-context.js';
import { readJson, readQuery } from './validate.js';

export function registerSessionRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.post('/v1/sessions', async (c) => {
    const body = await readJson(c, createSessionBodySchema);
    const result = await runtime.createSession({ ...body, ...traceContextOf(c), actor: principalOf(c) });
    return c.json(result, result.created ? 201 : 200);
  });

  app.get('/v1/sessions', async (c) => {
    const query = readQuery(c, listSessionsQuerySchema);
    return c.json({ sessions: await runtime.listSessions(query) });
  });

  /** Registered before `/v1/sessions/:id`, which would take `overview` for an id. */
  app.get('/v1/sessions/overview', async (c) => {
    const query = readQuery(c, overviewQuerySchema);
    return c.json({ sessions: await runtime.overview(query) });
  });

  app.get('/v1/sessions/:id', async (c) => c.json(await runtime.getSession(c.req.param('id'))));

  app.post('/v1/sessions/:id/archive', async (c) =>
    c.json({ session: await runtime.archive(c.req.param('id')) }),
  );
}
