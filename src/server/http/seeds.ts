import type { Hono } from 'hono';
import { parseSeed, validateSeed } from '../../seeds/seed-file.js';
import { seedJsonSchema } from '../../seeds/seed-schema.js';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { startSeedBodySchema } from './seed-schemas.js';
import { readJson } from './validate.js';

/** `/v1/seeds`: seed runs through `runtime.seeds`; their events are their session's (`/v1/sessions/{id}/events`). */
export function registerSeedRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/seeds/schema', (c) => c.json(seedJsonSchema()));

  app.post('/v1/seeds', async (c) => {
    const body = await readJson(c, startSeedBodySchema);
    const seed = typeof body.seed === 'string' ? parseSeed(body.seed) : validateSeed(body.seed);
    const run = await runtime.seeds.start({
      seed,
      cwd: body.cwd ?? seed.cwd ?? '',
      ...(body.offline !== undefined ? { offline: body.offline } : {}),
      ...(body.launchId ? { launchId: body.launchId } : {}),
      ...(body.organization ? { organization: body.organization } : {}),
      actor: principalOf(c),
    });
    return c.json({ run }, 201);
  });

  app.get('/v1/seeds', async (c) => c.json({ runs: await runtime.seeds.list() }));

  app.get('/v1/seeds/:id', async (c) => c.json({ run: await runtime.seeds.status(c.req.param('id')) }));

  app.post('/v1/seeds/:id/resume', async (c) =>
    c.json({ run: await runtime.seeds.resume(c.req.param('id')) }),
  );

  app.post('/v1/seeds/:id/stop', async (c) => c.json({ run: await runtime.seeds.stop(c.req.param('id')) }));
}
