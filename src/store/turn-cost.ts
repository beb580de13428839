import type { NewEvent } from './store.js';

/** The summed `costUsd` of the `agent.turn.completed` events among `events` (0 when none). */
export function turnCost(events: readonly NewEvent[]): number {
  let total = 0;
  for (const event of events) {
    if (event.type !== 'agent.turn.completed') continue;
    const data = event.data as { costUsd?: unknown } | null;
    const cost = typeof data === 'object' && data !== null ? data.costUsd : undefined;
    if (typeof cost === 'number' && Number.isFinite(cost)) {
      total += cost;
    }
  }
  return total;
}
