import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { messageStatus } from './messages.js';
import {
  bindChannelBodySchema,
  channelMessageBodySchema,
  organizationQuerySchema,
  selectRoleBodySchema,
} from './org-schemas.js';
import { traceContextOf } from './trace-context.js';
import { readJson, readQuery } from './validate.js';

/** Channel keys are external ids (`a2a:ctx`, `tg:-100123`): clients URL-encode them, Hono decodes the parameter. */
export function registerChannelRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/channels', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    return c.json({ channels: await runtime.channels.list(query) });
  });

  /** Binds a channel: 201 when created, 200 when it already was (its selected role unchanged). */
  app.post('/v1/channels', async (c) => {
    const body = await readJson(c, bindChannelBodySchema);
    const result = await runtime.channels.bind({ ...body, actor: principalOf(c) });
    return c.json(result, result.created ? 201 : 200);
  });

  app.get('/v1/channels/:key', async (c) => c.json(await runtime.channels.get(c.req.param('key'))));

  /** Needs agent.trigger on the channel's project and role.trigger on the role: else 403 and nothing changes. */
  app.put('/v1/channels/:key/role', async (c) => {
    const { role } = await readJson(c, selectRoleBodySchema);
    return c.json(await runtime.channels.selectRole(c.req.param('key'), role, { actor: principalOf(c) }));
  });

  app.post('/v1/channels/:key/messages', async (c) => {
    const body = await readJson(c, channelMessageBodySchema);
    const result = await runtime.channels.message(c.req.param('key'), {
      ...body,
      ...traceContextOf(c),
      actor: principalOf(c),
    });
    return c.json(result, messageStatus(result));
  });
}
