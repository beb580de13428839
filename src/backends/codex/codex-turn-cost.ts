import { AgentStartError, type SessionSpec } from '../agent-backend.js';
import type { AgentEvent, TokenUsage, TurnCompletedEvent } from '../agent-event.js';
import { costOf, type PriceTable, priceOf, pricesOf } from './codex-prices.js';
import type { ThreadUsage } from './codex-threads.js';

const noUsage: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
};

/**
 * A Codex turn's usage and cost. codex reports a thread's usage as its running total (a resumed
 * thread's includes every earlier turn), so a turn's own is the total less the total before it;
 * its cost comes from the price table (codex-prices.ts), marked `costEstimated`. A model without a
 * price costs 0, unmarked.
 */
export class CodexTurnCost {
  private before: TokenUsage = noUsage;

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

  /** A resumed thread's usage before this session's first turn. */
  startFrom(usage: ThreadUsage): void {
    this.before = {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadInputTokens: usage.cached_input_tokens,
      cacheCreationInputTokens: 0,
    };
  }

  /** The events with each `agent.turn.completed` given the turn's own usage and its cost. */
  async *pricing(events: AsyncIterable<AgentEvent>, model: () => string | null): AsyncGenerator<AgentEvent> {
    for await (const event of events) {
      yield event.type === 'agent.turn.completed' ? this.priced(event, model()) : event;
    }
  }

  /** `threadModel`: the model the thread's rollout names, for a session that names none. */
  priced(event: TurnCompletedEvent, threadModel: string | null): TurnCompletedEvent {
    const total = event.usage;
    const usage = since(total, this.before);
    this.before = total;
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

/** `total` less `before`; a total below it means a thread that started over, whose total is the turn's. */
function since(total: TokenUsage, before: TokenUsage): TokenUsage {
  const keys = Object.keys(noUsage) as Array<keyof TokenUsage>;
  if (keys.some((key) => total[key] < before[key])) return total;
  const usage = { ...noUsage };
  for (const key of keys) usage[key] = total[key] - before[key];
  return usage;
}
