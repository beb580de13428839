import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import { addScheduleBodySchema } from './automation-schemas.js';
import type { RouteContext } from './context.js';
import { organizationQuerySchema } from './org-schemas.js';
import { readJson, readQuery } from './validate.js';

export function registerScheduleRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/schedules', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    return c.json({ schedules: await runtime.schedules.list(query) });
  });

  app.post('/v1/schedules', async (c) => {
    const body = await readJson(c, addScheduleBodySchema);
    return c.json({ schedule: await runtime.schedules.add({ ...body, actor: principalOf(c) }) }, 201);
  });

  app.get('/v1/schedules/:id', async (c) => c.json(await runtime.schedules.get(c.req.param('id'))));

  app.post('/v1/schedules/:id/pause', async (c) =>
    c.json({ schedule: await runtime.schedules.pause(c.req.param('id'), { actor: principalOf(c) }) }),
  );

  app.post('/v1/schedules/:id/resume', async (c) =>
    c.json({ schedule: await runtime.schedules.resume(c.req.param('id'), { actor: principalOf(c) }) }),
  );

  app.delete('/v1/schedules/:id', async (c) => {
    await runtime.schedules.remove(c.req.param('id'), { actor: principalOf(c) });
    return c.body(null, 204);
  });
}
