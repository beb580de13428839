import type { Hono } from 'hono';
import { liveExecutionStates } from '../../store/store.js';
import { version } from '../../version.js';
import type { RouteContext } from './context.js';

/** Store reachable, and how many workers are live (after dead ones have been noticed). */
async function workerCheck(context: RouteContext): Promise<{ storeOk: boolean; liveWorkers: number }> {
  const { runtime } = context;
  try {
    await runtime.ping();
    await runtime.reconcile();
    const live = await runtime.executionsInState(liveExecutionStates);
    return { storeOk: true, liveWorkers: live.length };
  } catch (error) {
    context.log?.(`health: store check failed: ${String(error)}`);
    return { storeOk: false, liveWorkers: 0 };
  }
}

export function registerHealthRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  /** Liveness: the process answers. Nothing else is checked, so a slow store never restarts it. */
  app.get('/health/live', (c) => c.json({ status: 'ok' }));

  /** Readiness: 503 when the store is unreachable or the server runs its maximum of workers. */
  app.get('/health/ready', async (c) => {
    const { storeOk, liveWorkers } = await workerCheck(context);
    const reasons: string[] = [];
    if (!storeOk) reasons.push('store unreachable');
    if (liveWorkers >= context.maxLiveWorkers)
      reasons.push(`at the maximum of ${context.maxLiveWorkers} live workers`);
    const body = {
      ready: reasons.length === 0,
      reasons,
      liveWorkers,
      maxLiveWorkers: context.maxLiveWorkers,
    };
    return c.json(body, body.ready ? 200 : 503);
  });

  app.get('/health', async (c) => {
    const { storeOk, liveWorkers } = await workerCheck(context);
    let sessions = { total: 0, active: 0 };
    let pendingInteractions = 0;
    if (storeOk) {
      const all = await runtime.listSessions();
      sessions = { total: all.length, active: all.filter((session) => session.state === 'active').length };
      pendingInteractions = (await runtime.interactions({ state: 'pending' })).length;
    }
    const bridges = context.bridges?.() ?? [];
    // A chat platform that is down degrades the server, which still serves everything else.
    const bridgesOk = bridges.every((bridge) => bridge.state === 'connected');
    const body = {
      status: storeOk && bridgesOk ? ('ok' as const) : ('degraded' as const),
      version,
      uptimeSeconds: Math.round((Date.now() - context.startedAt) / 100) / 10,
      model: context.modelMode,
      sessions,
      liveWorkers,
      maxLiveWorkers: context.maxLiveWorkers,
      pendingInteractions,
      store: { kind: runtime.storeKind, status: storeOk ? ('ok' as const) : ('error' as const) },
      bridges,
    };
    return c.json(body, storeOk ? 200 : 503);
  });
}
