import type { Hono } from 'hono';
import { defaultOrganization } from '../../runtime/runtime-context.js';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import {
  createRoleBodySchema,
  organizationQuerySchema,
  roleQuerySchema,
  updateRoleBodySchema,
} from './org-schemas.js';
import { readJson, readQuery } from './validate.js';

export function registerRoleRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/roles', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    const [roles, organization] = await Promise.all([
      runtime.roles.list(query),
      runtime.roles.organization(query.organization ?? defaultOrganization),
    ]);
    return c.json({ roles, defaultRole: organization.defaultRole });
  });

  app.post('/v1/roles', async (c) => {
    const body = await readJson(c, createRoleBodySchema);
    return c.json({ role: await runtime.roles.create({ ...body, actor: principalOf(c) }) }, 201);
  });

  app.get('/v1/roles/:name', async (c) => {
    const query = readQuery(c, roleQuerySchema);
    return c.json({ role: await runtime.roles.get(c.req.param('name'), query) });
  });

  app.get('/v1/roles/:name/versions', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    return c.json({ versions: await runtime.roles.history(c.req.param('name'), query) });
  });

  /** The next version; `archived` lists the sessions a change to the execution surface archived. */
  app.patch('/v1/roles/:name', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    const { expectVersion, ...patch } = await readJson(c, updateRoleBodySchema);
    const change = await runtime.roles.update(c.req.param('name'), patch, {
      ...query,
      ...(expectVersion !== undefined ? { expectVersion } : {}),
      actor: principalOf(c),
    });
    return c.json(change);
  });

  app.delete('/v1/roles/:name', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    return c.json(await runtime.roles.delete(c.req.param('name'), { ...query, actor: principalOf(c) }));
  });

  /** Makes the role its organization's default. */
  app.post('/v1/roles/:name/default', async (c) => {
    const query = readQuery(c, organizationQuerySchema);
    const organization = await runtime.roles.setDefault(c.req.param('name'), {
      ...query,
      actor: principalOf(c),
    });
    return c.json({ organization });
  });
}
