import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { unsupportedMediaType } from './errors.js';

/** The archive types a skill upload may be; the kind itself is read from the bytes. */
export const skillArchiveTypes = [
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
] as const;

export function registerSkillRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/skills', async (c) => c.json({ skills: await runtime.skills.list() }));

  /** The body is the archive (zip, tar or tar.gz): 201 when stored, 200 when that content already was. */
  app.post('/v1/skills', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(skillArchiveTypes as readonly string[]).includes(type))
      throw unsupportedMediaType(
        `a skill is uploaded as its archive: Content-Type ${skillArchiveTypes.join(', ')}`,
        skillArchiveTypes,
      );
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const skill = await runtime.skills.add(bytes, { actor: principalOf(c) });
    return c.json({ skill }, skill.created ? 201 : 200);
  });

  app.get('/v1/skills/:digest', async (c) =>
    c.json({ skill: await runtime.skills.show(c.req.param('digest')) }),
  );

  app.delete('/v1/skills/:digest', async (c) => {
    await runtime.skills.remove(c.req.param('digest'), { actor: principalOf(c) });
    return c.body(null, 204);
  });
}
