import type { Hono } from 'hono';
import type { RouteContext } from './context.js';
import { interruptBodySchema } from './schemas.js';
import { readJson } from './validate.js';

export function registerExecutionRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/sessions/:id/executions', async (c) =>
    c.json({ executions: await runtime.listExecutions(c.req.param('id')) }),
  );

  /** Asks the live worker to stop; `execution` is null when none was live. */
  app.post('/v1/sessions/:id/stop', async (c) => {
    return c.json({ execution: await runtime.stop(c.req.param('id')) }, 202);
  });

  app.post('/v1/sessions/:id/resume', async (c) => {
    return c.json({ execution: await runtime.resume(c.req.param('id')) }, 201);
  });

  app.post('/v1/sessions/:id/interrupt', async (c) => {
    const body = await readJson(c, interruptBodySchema);
    return c.json({ interrupted: await runtime.interrupt(c.req.param('id'), body.reason) }, 202);
  });
}
