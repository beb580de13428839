import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { BridgeStatus } from '../bridges/chat-bridge.js';
import { type WebhookRoutes, webhookPrefix } from '../bridges/webhooks.js';
import type { Runtime } from '../runtime/runtime.js';
import { registerDashboardRoutes } from './dashboard/dashboard-routes.js';
import { bearerAuth } from './http/auth.js';
import { registerBudgetRoutes } from './http/budgets.js';
import { registerChannelRoutes } from './http/channels.js';
import type { RouteContext } from './http/context.js';
import { errorJson, payloadTooLarge, routeNotFound, toErrorResponse } from './http/errors.js';
import { registerEventRoutes } from './http/events.js';
import { registerExecutionRoutes } from './http/executions.js';
import { registerGrantRoutes } from './http/grants.js';
import { registerHealthRoutes } from './http/health.js';
import { registerInteractionRoutes } from './http/interactions.js';
import { registerMessageRoutes } from './http/messages.js';
import { registerMetricsRoutes } from './http/metrics.js';
import { registerMonitorRoutes } from './http/monitors.js';
import { registerOpenApiRoute } from './http/openapi.js';
import { registerPeerRoutes } from './http/peers.js';
import { registerProviderRoutes } from './http/providers.js';
import { registerRoleRoutes } from './http/roles.js';
import { registerRuleRoutes } from './http/rules.js';
import { registerScheduleRoutes } from './http/schedules.js';
import type { ModelMode } from './http/schemas.js';
import { registerSeedRoutes } from './http/seeds.js';
import { registerSessionRoutes } from './http/sessions.js';
import { registerSkillRoutes } from './http/skills.js';
import { registerWebhookRoutes } from './http/webhooks.js';
import { ServerMetrics } from './server-metrics.js';

export interface AppOptions {
  runtime: Runtime;
  /** Which model the workers talk to, as /health reports it (the runtime refuses what it cannot start). @default 'anthropic' */
  modelMode?: ModelMode;
  /**
   * Bearer tokens of the `owner`. When empty, a request without a token is the owner; tokens issued
   * to principals (`agentd principals token`) are accepted either way. @default []
   */
  tokens?: readonly string[];
  /** /health/ready answers 503 at this many live workers. @default 16 */
  maxLiveWorkers?: number;
  /** Largest request body in bytes. @default 1048576 (1 MiB) */
  bodyLimitBytes?: number;
  /** Origins allowed by CORS; none means no CORS headers at all. @default [] */
  corsOrigins?: readonly string[];
  /** Milliseconds between heartbeat comments on event streams. @default 15000 */
  heartbeatMs?: number;
  /** @default a new ServerMetrics for this runtime */
  metrics?: ServerMetrics;
  /** Aborting it ends open event streams (the server is closing). */
  closing?: AbortSignal;
  /** @default Date.now() */
  startedAt?: number;
  /** Where server faults are written; responses never carry them. @default none */
  log?: (line: string) => void;
  /**
   * Mount point for the A2A routes (src/server/a2a): called after authentication and the body limit
   * are in place, so A2A requests get both. The agent card path stays public.
   */
  mountA2a?: (app: Hono) => void;
  /** The built dashboard served at `/`; null serves none. @default the build's `dist/web` */
  dashboardDir?: string | null;
  /** Chat bridges' webhook endpoints under `/bridges/`: verified by the platform's own signature, not a bearer token. @default none */
  webhooks?: WebhookRoutes;
  /** The chat bridges' states, for `/health`. @default none */
  bridges?: () => BridgeStatus[];
}

export const defaultMaxLiveWorkers = 16;
export const defaultBodyLimitBytes = 1024 * 1024;
export const defaultHeartbeatMs = 15_000;

/** The HTTP API as a Hono app: routes translate to the Runtime and add no behaviour of their own. */
export function createApp(options: AppOptions): Hono {
  const context: RouteContext = {
    runtime: options.runtime,
    modelMode: options.modelMode ?? 'anthropic',
    metrics: options.metrics ?? new ServerMetrics({ runtime: options.runtime }),
    startedAt: options.startedAt ?? Date.now(),
    maxLiveWorkers: options.maxLiveWorkers ?? defaultMaxLiveWorkers,
    heartbeatMs: options.heartbeatMs ?? defaultHeartbeatMs,
    closing: options.closing ?? new AbortController().signal,
    ...(options.log ? { log: options.log } : {}),
    ...(options.bridges ? { bridges: options.bridges } : {}),
  };
  const limit = options.bodyLimitBytes ?? defaultBodyLimitBytes;
  const app = new Hono();

  app.onError((error, c) => {
    if (toErrorResponse(error).status >= 500)
      options.log?.(
        `${c.req.method} ${c.req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    return errorJson(c, error);
  });
  app.notFound((c) => errorJson(c, routeNotFound(c.req.method, c.req.path)));

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    app.use(
      '*',
      cors({
        origin: [...options.corsOrigins],
        allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'],
        allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      }),
    );
  }
  const webhooks = options.webhooks;
  if (webhooks)
    app.post(`${webhookPrefix}*`, (c) => {
      const handle = webhooks.get(c.req.path);
      return handle ? handle(c.req.raw) : errorJson(c, routeNotFound(c.req.method, c.req.path));
    });
  // The dashboard's own files are public (the page asks for a token); its API calls are not.
  registerDashboardRoutes(app, options.dashboardDir === undefined ? {} : { dir: options.dashboardDir });
  app.use('*', bearerAuth({ tokens: options.tokens ?? [], principals: options.runtime.grants }));
  app.use(
    '*',
    bodyLimit({
      maxSize: limit,
      onError: (c) => {
        // The rest of the body is not read, so the connection cannot carry another request: say so,
        // or a keep-alive client sends its next request on a connection the server then drops.
        c.header('Connection', 'close');
        return errorJson(c, payloadTooLarge(limit));
      },
    }),
  );

  registerHealthRoutes(app, context);
  registerMetricsRoutes(app, context);
  registerOpenApiRoute(app);
  registerSessionRoutes(app, context);
  registerMessageRoutes(app, context);
  registerEventRoutes(app, context);
  registerInteractionRoutes(app, context);
  registerExecutionRoutes(app, context);
  registerProviderRoutes(app, context);
  registerRoleRoutes(app, context);
  registerSkillRoutes(app, context);
  registerChannelRoutes(app, context);
  registerGrantRoutes(app, context);
  registerBudgetRoutes(app, context);
  registerPeerRoutes(app, context);
  registerMonitorRoutes(app, context);
  registerSeedRoutes(app, context);
  registerScheduleRoutes(app, context);
  registerWebhookRoutes(app, context);
  registerRuleRoutes(app, context);
  options.mountA2a?.(app);
  return app;
}
