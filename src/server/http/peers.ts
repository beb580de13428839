import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { peerSendBodySchema } from './peer-schemas.js';
import { readJson } from './validate.js';

export function registerPeerRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  /** A message from one session to another: an input of the receiver that names its source. */
  app.post('/v1/peer-messages', async (c) => {
    const body = await readJson(c, peerSendBodySchema);
    return c.json({ input: await runtime.peers.send({ ...body, actor: principalOf(c) }) }, 202);
  });

  app.get('/v1/sessions/:id/peers', async (c) =>
    c.json({ messages: await runtime.peers.list(c.req.param('id')) }),
  );
}
