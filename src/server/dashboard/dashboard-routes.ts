import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';

/**
 * The dashboard's page may load only its own files and talk only to this server: agent output it
 * shows is sanitized, and this is the second line if a sanitizer ever misses something.
 */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Where `npm run build` put the dashboard: `dist/web` beside the compiled server (`dist/server/…`),
 * or the checkout's `dist/web` when the server runs from its sources (tests, tsx).
 */
export function findDashboardDir(): string | null {
  const candidates = [join(here, '..', '..', 'web'), join(here, '..', '..', '..', 'dist', 'web')];
  return candidates.find((candidate) => existsSync(join(candidate, 'index.html'))) ?? null;
}

export interface DashboardRoutesOptions {
  /** The built dashboard (index.html and assets/). @default findDashboardDir() */
  dir?: string | null;
}

/**
 * Serves the built dashboard at `/` (its views are `#/…` routes, so there is one page) and its
 * hashed assets under `/assets/`. The files are public: the page itself asks for a token, and
 * every API call it makes is checked like any client's. Registered before authentication.
 */
export function registerDashboardRoutes(app: Hono, options: DashboardRoutesOptions = {}): void {
  const dir = options.dir === undefined ? findDashboardDir() : options.dir;
  if (dir === null) {
    app.get('/', (c) =>
      c.text(
        'agentd: the dashboard is not built here (run `npm run build`); the HTTP API is under /v1\n',
        404,
      ),
    );
    return;
  }
  const page = readFileSync(join(dir, 'index.html'));
  const secure = (headers: Record<string, string>) => ({
    'Content-Security-Policy': dashboardCsp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...headers,
  });
  const index = () =>
    new Response(page, {
      headers: secure({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }),
    });
  app.get('/', index);
  app.get('/index.html', index);
  app.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = contentTypes[extname(file)];
    const path = join(dir, 'assets', file);
    // One plain file name: no separators, no `..`, only the kinds the build writes.
    if (!/^[\w.-]+$/.test(file) || file.startsWith('.') || !type || !existsSync(path)) return c.notFound();
    return new Response(readFileSync(path), {
      headers: secure({ 'Content-Type': type, 'Cache-Control': 'public, max-age=31536000, immutable' }),
    });
  });
}
