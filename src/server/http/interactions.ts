import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { answerBodySchema, listInteractionsQuerySchema } from './schemas.js';
import { readJson, readQuery } from './validate.js';

export function registerInteractionRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/interactions', async (c) => {
    const query = readQuery(c, listInteractionsQuerySchema);
    return c.json({ interactions: await runtime.interactions(query) });
  });

  /** Answered exactly once: a second answer is a 409 `conflict`. */
  app.post('/v1/interactions/:id/answer', async (c) => {
    const answer = await readJson(c, answerBodySchema);
    return c.json({
      interaction: await runtime.answer(c.req.param('id'), answer, { actor: principalOf(c) }),
    });
  });
}
