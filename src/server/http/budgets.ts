import type { Hono } from 'hono';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { setBudgetBodySchema } from './org-schemas.js';
import { readJson } from './validate.js';

export function registerBudgetRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  app.get('/v1/budgets', async (c) => c.json({ budgets: await runtime.budgets.list() }));

  app.get('/v1/spend', async (c) => c.json(await runtime.budgets.report()));

  /** Sets (or with `limitUsd: null` removes) a limit; raising one lets waiting inputs go on. */
  app.put('/v1/budgets', async (c) => {
    const body = await readJson(c, setBudgetBodySchema);
    return c.json({ budget: await runtime.budgets.set({ ...body, actor: principalOf(c) }) });
  });
}
