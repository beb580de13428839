import type { BridgeStatus } from '../../bridges/chat-bridge.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { ServerMetrics } from '../server-metrics.js';
import type { ModelMode } from './schemas.js';

/** What every route reads: the runtime it translates to, and the server's own settings. */
export interface RouteContext {
  runtime: Runtime;
  modelMode: ModelMode;
  metrics: ServerMetrics;
  /** When the server started (epoch ms), for uptime. */
  startedAt: number;
  maxLiveWorkers: number;
  /** Milliseconds between `: ping` comments on idle event streams. */
  heartbeatMs: number;
  /** Aborts when the server closes, ending open event streams. */
  closing: AbortSignal;
  /** Where server faults are written (never into responses). */
  log?: (line: string) => void;
  /** The chat bridges' states (`agentd serve`). */
  bridges?: () => BridgeStatus[];
}
