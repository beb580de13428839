import { CredentialsMissingError } from '../../errors/index.js';
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
}

/**
 * Starting an agent needs a model. Without credentials the server still serves reads, and says
 * exactly what to set instead of letting a worker fail on its first API call.
 */
export function requireModel(context: RouteContext): void {
  if (context.modelMode !== 'unconfigured') return;
  throw new CredentialsMissingError(
    'no model credentials configured: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL + ANTHROPIC_AUTH_TOKEN for OpenRouter, or CLAUDE_CODE_OAUTH_TOKEN) and restart, or start with `agentd serve --offline` for the built-in demo model',
  );
}
