import type { Hono } from 'hono';
import type { RouteContext } from './context.js';

export function registerMetricsRoutes(app: Hono, context: RouteContext): void {
  app.get('/metrics', async (c) => {
    const text = await context.metrics.render();
    return c.body(text, 200, { 'content-type': context.metrics.contentType });
  });
}
