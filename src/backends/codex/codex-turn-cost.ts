import { AgentStartError, type SessionSpec } from '../agent-backend.js';
import type { AgentEvent, TurnCompletedEvent } from '../agent-event.js';
import { costOf, type PriceTable, priceOf, pricesOf } from './codex-prices.js';

/**
 * A Codex turn's cost. The session's `agent.turn.completed` already carries the turn's own usage:
 * `codex app-server`'s `thread/tokenUsage/updated` gives each model request's usage (`last`) beside
 * the thread's running total (`total`), and the session adds up the `last`s of the turn. Its cost
 * comes from the price table (codex-prices.ts), marked `costEstimated`. A model without a price
 * costs 0, unmarked.
 */
export class CodexTurnCost {
  private constructor(
    private readonly spec: SessionSpec,
    private readonly prices: PriceTable,
  ) {}

  /** The session's pricing; a malformed price table fails the start, before any input is sent. */
  static open(spec: SessionSpec, env: Record<string, string | undefined>): CodexTurnCost {
    try {
      return new CodexTurnCost(spec, pricesOf(spec, env));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new AgentStartError(`codex could not be started: ${message}`, { cause: error });
    }
  }

  /** The events with each `agent.turn.completed` given its cost. */
  async *pricing(events: AsyncIterable<AgentEvent>, model: () => string | null): AsyncGenerator<AgentEvent> {
    for await (const event of events) {
      yield event.type === 'agent.turn.completed' ? this.priced(event, model()) : event;
    }
  }

  /** `threadModel`: the model the thread's rollout names, for a session that names none. */
  priced(event: TurnCompletedEvent, threadModel: string | null): TurnCompletedEvent {
    const usage = event.usage;
    const model = this.spec.model ?? threadModel;
    const price = priceOf(this.prices, model);
    const costUsd = price ? costOf(usage, price) : 0;
    return {
      ...event,
      usage,
      costUsd,
      ...(price ? { costEstimated: true } : {}),
      modelUsage: { [model ?? 'codex']: { ...usage, costUsd } },
    };
  }
}
