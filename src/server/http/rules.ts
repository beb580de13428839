import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { addPermissionRuleBodySchema, listPermissionRulesQuerySchema } from './rule-schemas.js';
import { readJson, readQuery } from './validate.js';

/** Permission rules (approval scopes): listed, added, revoked; the runtime checks who may. */
export function registerRuleRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/rules', async (c) => {
    const query = readQuery(c, listPermissionRulesQuerySchema);
    const rules = await runtime.rules.list({
      ...(query.sessionId ? { sessionId: query.sessionId } : {}),
      ...(query.all === 'true' ? { includeRevoked: true } : {}),
    });
    return c.json({ rules });
  });

  app.post('/v1/rules', async (c) => {
    const body = await readJson(c, addPermissionRuleBodySchema);
    const rule = await runtime.rules.add({
      ...body,
      decision: body.decision ?? 'approve',
      actor: principalOf(c),
    });
    return c.json({ rule }, 201);
  });

  app.get('/v1/rules/:id', async (c) => c.json({ rule: await runtime.rules.get(c.req.param('id')) }));

  app.delete('/v1/rules/:id', async (c) =>
    c.json({ rule: await runtime.rules.revoke(c.req.param('id'), { actor: principalOf(c) }) }),
  );
}
