import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { addProviderBodySchema } from './org-schemas.js';
import { readJson } from './validate.js';

export function registerProviderRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/providers', async (c) => c.json({ providers: await runtime.providers.list() }));

  /** Creates or replaces a profile by name: 201 when created, 200 when replaced. */
  app.post('/v1/providers', async (c) => {
    const body = await readJson(c, addProviderBodySchema);
    const result = await runtime.providers.add({ ...body, actor: principalOf(c) });
    return c.json(result, result.created ? 201 : 200);
  });

  app.get('/v1/providers/:name', async (c) =>
    c.json({ provider: await runtime.providers.get(c.req.param('name')) }),
  );

  app.delete('/v1/providers/:name', async (c) => {
    await runtime.providers.remove(c.req.param('name'), { actor: principalOf(c) });
    return c.body(null, 204);
  });
}
