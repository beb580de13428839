import type { RetryConfig } from '../../config/claude-config.js';

/**
 * Delay before retry number `attempt` (1-based): exponential from `initialDelayMs`, capped at
 * `maxDelayMs`, with "equal jitter" (half fixed, half random) so that many sessions hitting the
 * same rate limit do not retry in lockstep.
 */
export function backoffDelay(
  config: RetryConfig,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(config.maxDelayMs, config.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}
