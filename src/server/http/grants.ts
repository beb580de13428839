import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { addGrantBodySchema, listGrantsQuerySchema } from './org-schemas.js';
import { readJson, readQuery } from './validate.js';

export function registerGrantRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/grants', async (c) => {
    const query = readQuery(c, listGrantsQuerySchema);
    return c.json({ grants: await runtime.grants.list(query) });
  });

  /** Idempotent on (principal, action, resource): the same grant again returns the existing one. */
  app.post('/v1/grants', async (c) => {
    const body = await readJson(c, addGrantBodySchema);
    return c.json({ grant: await runtime.grants.add({ ...body, actor: principalOf(c) }) }, 201);
  });

  app.delete('/v1/grants/:id', async (c) => {
    await runtime.grants.remove(c.req.param('id'), { actor: principalOf(c) });
    return c.body(null, 204);
  });
}
