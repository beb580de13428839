import type { Hono } from 'hono';
import type { RouteContext } from './context.js';
import { sendMessageBodySchema } from './schemas.js';
import { traceContextOf } from './trace-context.js';
import { readJson } from './validate.js';

export function registerMessageRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  /** 202: the message is journaled; a worker delivers it. Same id + text returns the same input. */
  app.post('/v1/sessions/:id/messages', async (c) => {
    const body = await readJson(c, sendMessageBodySchema);
    return c.json({ input: await runtime.send(c.req.param('id'), { ...body, ...traceContextOf(c) }) }, 202);
  });

  app.get('/v1/sessions/:id/inputs', async (c) =>
    c.json({ inputs: await runtime.listInputs(c.req.param('id')) }),
  );
}
