import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import { addWebhookBodySchema, disableWebhookBodySchema } from './automation-schemas.js';
import type { RouteContext } from './context.js';
import { organizationQuerySchema } from './org-schemas.js';
import { readJson, readQuery } from './validate.js';

export function registerWebhookRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/webhooks', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    return c.json({ webhooks: await runtime.webhooks.list(query) });
  });

  app.post('/v1/webhooks', async (c) => {
    const body = await readJson(c, addWebhookBodySchema);
    return c.json({ webhook: await runtime.webhooks.add({ ...body, actor: principalOf(c) }) }, 201);
  });

  app.get('/v1/webhooks/:id', async (c) =>
    c.json({ webhook: await runtime.webhooks.get(c.req.param('id')) }),
  );

  app.get('/v1/webhooks/:id/deliveries', async (c) =>
    c.json({ deliveries: await runtime.webhooks.deliveries(c.req.param('id')) }),
  );

  app.post('/v1/webhooks/:id/enable', async (c) =>
    c.json({ webhook: await runtime.webhooks.enable(c.req.param('id'), { actor: principalOf(c) }) }),
  );

  app.post('/v1/webhooks/:id/disable', async (c) => {
    const body = await readJson(c, disableWebhookBodySchema);
    return c.json({
      webhook: await runtime.webhooks.disable(c.req.param('id'), { ...body, actor: principalOf(c) }),
    });
  });

  app.delete('/v1/webhooks/:id', async (c) => {
    await runtime.webhooks.remove(c.req.param('id'), { actor: principalOf(c) });
    return c.body(null, 204);
  });
}
