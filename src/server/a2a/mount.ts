import type { AgentCard } from '@a2a-js/sdk';
import {
  type A2ARequestHandler,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  type PushNotificationSender,
} from '@a2a-js/sdk/server';
import type { Hono } from 'hono';
import type { Runtime } from '../../runtime/runtime.js';
import type { A2aStore } from '../../store/a2a-store.js';
import type { Leadership } from '../../store/store.js';
import { type AgentCardConfig, a2aPaths, buildAgentCard, parseAgentCardConfig } from './agent-card.js';
import { AgentdExecutor } from './executor.js';
import { PushDispatcher } from './push-dispatcher.js';
import type { PushSenderOptions } from './push-sender.js';
import { AgentdPushNotificationStore } from './push-store.js';
import { AgentdRequestHandler } from './request-handler.js';
import { registerAgentCardRoutes } from './routes/agent-card-route.js';
import { registerJsonRpcRoutes } from './routes/json-rpc.js';
import { registerRestRoutes } from './routes/rest.js';
import { type EngineTiming, type ReconcileReport, type SessionDefaults, TaskEngine } from './task-engine.js';
import { AgentdTaskStore } from './task-store.js';

export interface MountA2aOptions {
  runtime: Runtime;
  /** Where tasks and push configs are kept; its owner closes it, after the mount. */
  store: A2aStore;
  /** The card's name, description, version and skills. @default agentd's own */
  agentCard?: AgentCardConfig | Record<string, unknown>;
  /**
   * The public base URL the agent card advertises; a function when it is known only once the server
   * listens. @default the origin the card was requested at (its Host header, and X-Forwarded-Proto),
   * which is right behind a Kubernetes Service or a proxy that keeps the Host header
   */
  baseUrl?: string | (() => string);
  /** Declare bearer-token authentication in the card (the server requires tokens). @default false */
  bearerAuth?: boolean;
  /** Working directory and settings of the sessions that A2A contexts' channels start. @default the runtime's */
  session?: SessionDefaults;
  push?: PushSenderOptions;
  /**
   * The push duty: notifications are sent by the one node holding it (the mount closes it).
   * @default the runtime's leadership of `a2a-push` (always this node on SQLite)
   */
  pushDuty?: Leadership;
  timing?: Partial<EngineTiming>;
  /** Milliseconds between keep-alive comments on quiet event streams. @default 15000 */
  heartbeatMs?: number;
  /** Bring the tasks left open by an earlier server up to date from the journal. @default true */
  reconcile?: boolean;
  /** Where faults that no request can report are written. @default none */
  log?: (line: string) => void;
}

export interface A2aMount {
  readonly requestHandler: A2ARequestHandler;
  /** Settles once the tasks open at mount were brought up to date from their journals. */
  readonly reconciled: Promise<ReconcileReport>;
  /** The card, with URLs under `origin` unless a base URL was configured. */
  agentCard(origin?: string): AgentCard;
  /** Resolves when the push notifications queued so far were delivered or given up (on the duty's node). */
  pushesSettled(): Promise<void>;
  /** Stops following tasks and sending notifications; call before closing the runtime. */
  close(): Promise<void>;
}

/** Pushes come from the task followers (they see every event, with or without a request) through the outbox. */
const viaFollowers: PushNotificationSender = { send: async () => undefined };

/**
 * Mounts A2A on a Hono app: JSON-RPC at `/` and `/a2a` (v1.0 and v0.3 method names), HTTP+JSON
 * under `/a2a/v1`, and the agent card at `/.well-known/agent-card.json`. Tasks live in the A2A
 * store; each A2A context is the agentd channel `a2a:<contextId>`; the work is the Runtime's. A
 * request acts as the principal the app's auth middleware set (`principalOf`).
 */
export function mountA2a(app: Hono, options: MountA2aOptions): A2aMount {
  const { runtime } = options;
  const config = parseAgentCardConfig(options.agentCard);
  const configured = () => (typeof options.baseUrl === 'function' ? options.baseUrl() : options.baseUrl);
  const card = (origin?: string) =>
    buildAgentCard(config, {
      baseUrl: configured() || origin || 'http://localhost',
      bearer: options.bearerAuth ?? false,
    });
  const taskStore = new AgentdTaskStore(options.store);
  const pushStore = new AgentdPushNotificationStore(options.store);
  const pushDuty = options.pushDuty ?? runtime.leadership('a2a-push');
  const pushes = new PushDispatcher({
    store: options.store,
    duty: pushDuty,
    ...(options.push ? { push: options.push } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const busManager = new DefaultExecutionEventBusManager();
  const engine = new TaskEngine({
    runtime,
    taskStore,
    pushes,
    busManager,
    ...(options.session ? { sessionDefaults: options.session } : {}),
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  // The SDK reads only the card's capabilities and interfaces, not its URLs.
  const inner = new DefaultRequestHandler(
    buildAgentCard(config, { baseUrl: 'http://localhost' }),
    taskStore,
    new AgentdExecutor(engine),
    busManager,
    pushStore,
    viaFollowers,
  );
  const requestHandler = new AgentdRequestHandler(inner, engine, card);

  registerAgentCardRoutes(app, card);
  const streams = options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {};
  registerJsonRpcRoutes(app, [a2aPaths.jsonRpc, a2aPaths.jsonRpcAlias], requestHandler, streams);
  registerRestRoutes(app, a2aPaths.rest, requestHandler, streams);

  pushes.start(() => engine.adoptPushTasks());
  const reconciled = options.reconcile === false ? Promise.resolve({ tasks: [] }) : engine.reconcile();
  reconciled.catch((error: unknown) => options.log?.(`A2A task reconciliation failed: ${String(error)}`));
  return {
    requestHandler,
    reconciled,
    agentCard: card,
    pushesSettled: () => pushes.idle(),
    close: async () => {
      await pushes.close();
      await engine.close();
      await pushDuty.close();
    },
  };
}
