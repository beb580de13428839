/** Token usage and cost of a turn, as `agent.turn.completed` journals it. */
export interface TurnUsage {
  usage: {
    inputTokens: number;
    outputTokens: number;
    cacheReadInputTokens: number;
    cacheCreationInputTokens: number;
  };
  costUsd: number;
  numTurns: number;
  durationApiMs: number;
}

/** kagent-claude's completion metadata keys, so kagent's dashboard and tooling read them as they do there. */
export function usageMetadata(turn: TurnUsage): Record<string, number> {
  const usage = turn.usage;
  return {
    'kagent.claude.input_tokens': usage.inputTokens,
    'kagent.claude.output_tokens': usage.outputTokens,
    'kagent.claude.total_tokens': usage.inputTokens + usage.outputTokens,
    'kagent.claude.cache_read_input_tokens': usage.cacheReadInputTokens,
    'kagent.claude.cache_creation_input_tokens': usage.cacheCreationInputTokens,
    'kagent.claude.total_cost_usd': turn.costUsd,
    'kagent.claude.num_turns': turn.numTurns,
    'kagent.claude.duration_api_ms': turn.durationApiMs,
  };
}
