import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { goalBodySchema, monitorStartBodySchema } from './monitor-schemas.js';
import { readJson } from './validate.js';

export function registerMonitorRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.post('/v1/sessions/:id/monitors', async (c) => {
    const body = await readJson(c, monitorStartBodySchema);
    const monitor = await runtime.monitors.start(c.req.param('id'), { ...body, actor: principalOf(c) });
    return c.json({ monitor }, 201);
  });

  /** Claude's own /goal, through the command protocol. */
  app.post('/v1/sessions/:id/goal', async (c) => {
    const body = await readJson(c, goalBodySchema);
    return c.json({ input: await runtime.goal(c.req.param('id'), { ...body, actor: principalOf(c) }) }, 202);
  });

  app.get('/v1/sessions/:id/monitors', async (c) =>
    c.json({ monitors: await runtime.monitors.list(c.req.param('id')) }),
  );

  app.get('/v1/sessions/:id/monitors/:monitor', async (c) =>
    c.json({ monitor: await runtime.monitors.get(c.req.param('id'), c.req.param('monitor')) }),
  );

  app.post('/v1/sessions/:id/monitors/:monitor/stop', async (c) =>
    c.json({ monitor: await runtime.monitors.stop(c.req.param('id'), c.req.param('monitor')) }),
  );

  app.get('/v1/sessions/:id/monitors/:monitor/events', async (c) => {
    const records = await runtime.monitors.events(c.req.param('id'), c.req.param('monitor'));
    return c.json({
      events: records.map(({ cursor, type, data, createdAt }) => ({ cursor, type, data, createdAt })),
    });
  });
}
