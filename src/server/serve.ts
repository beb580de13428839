import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { type RunningBridges, startBridges } from '../bridges/start-bridges.js';
import { WebhookRoutes } from '../bridges/webhooks.js';
import { ConfigError } from '../errors/index.js';
import { openA2aStore } from '../journal/open-store.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { startScheduleTicker } from '../runtime/schedules.js';
import type { WebhookSendOptions } from '../runtime/webhook-sender.js';
import { type A2aMount, mountA2a } from './a2a/mount.js';
import { createApp } from './app.js';
import type { ModelMode } from './http/schemas.js';
import { modelModeOf } from './model-mode.js';
import {
  baseClaudeConfig,
  configuredTokens,
  defaultSpareWorkers,
  type ServerConfig,
} from './server-config.js';
import { ServerMetrics } from './server-metrics.js';

export interface StartServerOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 8080 */
  port?: number;
  /** @default AGENTD_DATA_DIR, else ~/.local/state/agentd */
  dataDir?: string;
  /** Environment of the server and its workers (credentials, CLAUDE_*, AGENTD_TOKENS). @default process.env */
  env?: Record<string, string | undefined>;
  /** The parsed `--config` file. @default {} */
  config?: ServerConfig;
  /** Tokens besides the config file's and AGENTD_TOKENS. @default [] */
  tokens?: readonly string[];
  /** Allow a non-loopback host without tokens. @default false */
  insecure?: boolean;
  /**
   * Sessions created here use the built-in demo model (provider `offline`): each of their workers
   * starts it for itself, so they answer with no credentials, also after the server stops. @default false
   */
  offline?: boolean;
  /** Overrides the config file's value. @default 16 */
  maxLiveWorkers?: number;
  /** Overrides the config file's value. @default 1 MiB */
  bodyLimitBytes?: number;
  /** Overrides the config file's value. @default 15000 */
  heartbeatMs?: number;
  /** How often the runtime polls the journal for followers. @default 50 */
  pollMs?: number;
  /**
   * How often dead workers are looked for, so that their `execution.failed` reaches event streams
   * even when no request touches the session. @default 5000
   */
  reconcileMs?: number;
  /** Where notices and server faults go. @default none */
  log?: (line: string) => void;
  /** Serve A2A (JSON-RPC at `/` and `/a2a`, HTTP+JSON under `/a2a/v1`, the agent card). @default true */
  a2a?: boolean;
  /** The public base URL the agent card advertises. @default the origin the card is requested at */
  publicUrl?: string;
  /** What schedules and webhook retries read the time from (tests move it). @default Date.now */
  clock?: () => number;
  /** How often due schedule occurrences are looked for, in ms. @default 1000 */
  scheduleTickMs?: number;
  /** How webhook deliveries are polled, retried and given up. */
  webhooks?: WebhookSendOptions;
}

export interface RunningServer {
  /** Base URL, such as `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly modelMode: ModelMode;
  readonly runtime: Runtime;
  readonly dataDir: string;
  /** Whether bearer tokens are required. */
  readonly authenticated: boolean;
  /** Things worth telling the person who started the server. */
  readonly notices: string[];
  /** Ends event streams, stops listening and closes the store. Workers keep running: they are detached. */
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

function urlOf(host: string, port: number): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** How long open connections (event streams) get to end before they are cut. */
const closeGraceMs = 2000;

/** Starts `agentd serve`: the runtime and the HTTP API (with A2A) on Hono. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const config = options.config ?? {};
  const env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  const tokens = configuredTokens(config, env, options.tokens);
  if (!isLoopback(host) && tokens.length === 0 && !options.insecure) {
    throw new ConfigError(
      `refusing to listen on ${host} without authentication: set AGENTD_TOKENS (or "tokens" in the config file), or pass --insecure to serve it open`,
    );
  }

  const notices: string[] = [];
  const modelMode: ModelMode = options.offline ? 'offline' : modelModeOf(env);
  if (options.offline)
    notices.push('offline: new sessions answer with the built-in demo model (docs/offline-demo.md)');
  if (!isLoopback(host) && tokens.length === 0)
    notices.push(`WARNING: listening on ${host} with no authentication (--insecure)`);

  const runtime = await createRuntime({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    env,
    config: baseClaudeConfig(config, env),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.offline ? { offline: true } : {}),
    // A server keeps a warm pool (roles may ask for entries); its own default count is none. One
    // spare worker waits for whatever session starts or wakes next.
    warmPool: config.warmPool ?? 0,
    spareWorkers: config.spareWorkers ?? defaultSpareWorkers,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  // Cluster-wide duties, each held by one node at a time on a shared store (docs/postgres.md).
  const duties = {
    reconcile: runtime.leadership('reconcile'),
    ...(options.a2a === false ? {} : { 'a2a-push': runtime.leadership('a2a-push') }),
  };
  const metrics = new ServerMetrics({ runtime, duties });
  await metrics.baseline();
  const closing = new AbortController();
  let url = '';
  let a2a: A2aMount | undefined;
  // A2A's tasks live in the same data file as the runtime's sessions, behind their own store.
  const a2aStore = options.a2a === false ? undefined : await openA2aStore(runtime.paths, env);
  // Bridges start once the server listens; their webhooks and states are looked up per request.
  const webhooks = new WebhookRoutes();
  let bridges: RunningBridges | undefined;
  const app = createApp({
    webhooks,
    bridges: () => bridges?.status() ?? [],
    runtime,
    modelMode,
    tokens,
    metrics,
    closing: closing.signal,
    maxLiveWorkers: options.maxLiveWorkers ?? config.maxLiveWorkers,
    bodyLimitBytes: options.bodyLimitBytes ?? config.bodyLimitBytes,
    heartbeatMs:
      options.heartbeatMs ?? (config.heartbeatSeconds ? config.heartbeatSeconds * 1000 : undefined),
    corsOrigins: config.corsOrigins,
    ...(options.log ? { log: options.log } : {}),
    ...(options.a2a === false
      ? {}
      : {
          mountA2a: (hono: Hono) => {
            a2a = mountA2a(hono, {
              runtime,
              store: a2aStore!,
              ...(config.agentCard ? { agentCard: config.agentCard } : {}),
              ...(options.publicUrl ? { baseUrl: options.publicUrl } : {}),
              bearerAuth: tokens.length > 0,
              ...(duties['a2a-push'] ? { pushDuty: duties['a2a-push'] } : {}),
              ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
              ...(options.log ? { log: options.log } : {}),
            });
          },
        }),
  });

  const server = createAdaptorServer({ fetch: app.fetch });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8080, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await a2a?.close();
    await duties.reconcile.close();
    await a2aStore?.close();
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new ConfigError(`cannot listen on ${host}:${options.port ?? 8080}: ${code}`, { code });
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  url = urlOf(host, port);

  // Noticing dead workers across the cluster is one node's duty at a time (on a shared store).
  const reconcileDuty = duties.reconcile;
  try {
    bridges = await startBridges({
      runtime,
      config: config.bridges,
      env,
      webhooks,
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (error) {
    (server as import('node:http').Server).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await a2a?.close();
    await duties.reconcile.close();
    await a2aStore?.close();
    await runtime.close();
    throw error;
  }
  for (const platform of bridges.platforms) notices.push(`chat bridge: ${platform}`);

  const reconciler = setInterval(() => {
    if (!reconcileDuty.leader) return;
    runtime.reconcile().catch((error: unknown) => options.log?.(`reconcile failed: ${String(error)}`));
  }, options.reconcileMs ?? 5000);
  reconciler.unref();
  // Every node ticks and sends: the store's claims decide which node fires an occurrence or sends
  // a delivery (docs/decisions/0160-schedule-firing.md, 0161-webhook-deliveries.md).
  const log = options.log;
  const ticker = startScheduleTicker({
    schedules: runtime.schedules,
    ...(options.scheduleTickMs ? { tickMs: options.scheduleTickMs } : {}),
    ...(log ? { log } : {}),
  });
  const webhookSender = runtime.startWebhookSender({ ...options.webhooks, ...(log ? { log } : {}) });

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      clearInterval(reconciler);
      await reconcileDuty.close();
      await ticker.close();
      await webhookSender.close();
      closing.abort();
      await bridges?.stop();
      const http = server as import('node:http').Server;
      const done = new Promise<void>((resolve) => http.close(() => resolve()));
      // Event streams end on `closing` within a poll; their keep-alive connections then turn idle.
      const idle = setInterval(() => http.closeIdleConnections(), 25);
      const cut = setTimeout(() => http.closeAllConnections(), closeGraceMs);
      http.closeIdleConnections();
      await done;
      clearInterval(idle);
      clearTimeout(cut);
      await a2a?.close();
      await a2aStore?.close();
      await runtime.close();
    })();
    return closed;
  };

  return {
    url,
    host,
    port,
    modelMode,
    runtime,
    dataDir: runtime.paths.root,
    authenticated: tokens.length > 0,
    notices,
    close,
  };
}
