import { describe, expect, it } from 'vitest';
import { AgentStartError, type SessionSpec } from '../agent-backend.js';
import type { TurnCompletedEvent } from '../agent-event.js';
import { pricesVariable } from './codex-prices.js';
import { CodexTurnCost } from './codex-turn-cost.js';

const spec = (model?: string): SessionSpec => ({
  timeoutSeconds: 0,
  retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0 },
  ...(model ? { model } : {}),
});

/** A turn.completed as the session reports it: the turn's own usage. */
const completed = (input: number, cached: number, output: number): TurnCompletedEvent => ({
  type: 'agent.turn.completed',
  subtype: 'success',
  isError: false,
  result: 'ok',
  sessionId: 'thread-1',
  usage: {
    inputTokens: input,
    cacheReadInputTokens: cached,
    outputTokens: output,
    cacheCreationInputTokens: 0,
  },
  costUsd: 0,
  numTurns: 1,
  durationMs: 1,
  durationApiMs: 0,
  modelUsage: {},
  inputIds: ['i'],
});

describe('CodexTurnCost', () => {
  it('each turn is priced from its own usage and marked estimated; one turn does not change the next', () => {
    const cost = CodexTurnCost.open(spec('gpt-5.4'), {});
    const first = cost.priced(completed(1000, 400, 100), null);
    const second = cost.priced(completed(1500, 1000, 50), null);
    expect(first.usage).toMatchObject({ inputTokens: 1000, cacheReadInputTokens: 400, outputTokens: 100 });
    expect(second.usage).toMatchObject({ inputTokens: 1500, cacheReadInputTokens: 1000, outputTokens: 50 });
    expect(first.costUsd).toBeCloseTo((600 * 2.5 + 400 * 0.25 + 100 * 15) / 1e6, 12);
    expect(second.costUsd).toBeCloseTo((500 * 2.5 + 1000 * 0.25 + 50 * 15) / 1e6, 12);
    expect([first.costEstimated, second.costEstimated]).toEqual([true, true]);
    expect(Object.keys(second.modelUsage)).toEqual(['gpt-5.4']);
    expect(second.modelUsage['gpt-5.4']).toMatchObject({ inputTokens: 1500, costUsd: second.costUsd });
  });

  it('a session without a model is priced by the model its thread names; a model without a price costs 0, unmarked', () => {
    const cost = CodexTurnCost.open(spec(), {});
    const named = cost.priced(completed(1000, 0, 0), 'gpt-5.5');
    expect(named.costUsd).toBeCloseTo((1000 * 5) / 1e6, 12);
    const unknown = CodexTurnCost.open(spec('nobody-knows'), {}).priced(completed(1000, 0, 100), 'gpt-5.5');
    expect(unknown.costUsd).toBe(0);
    expect(unknown.costEstimated).toBeUndefined();
    expect(Object.keys(unknown.modelUsage)).toEqual(['nobody-knows']);
  });

  it('open: a malformed price table is agent_start_failed', () => {
    expect(() => CodexTurnCost.open(spec(), { [pricesVariable]: '[1]' })).toThrowError(AgentStartError);
  });
});
