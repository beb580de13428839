import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/agentd-error.js';
import type { SessionSpec } from '../agent-backend.js';
import { costOf, defaultCodexPrices, priceOf, pricesOf, pricesVariable } from './codex-prices.js';

const spec = (settings: Record<string, unknown> = {}): SessionSpec => ({
  timeoutSeconds: 0,
  retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0 },
  settings,
});

describe('codex prices', () => {
  it('pricesOf: the defaults, under the server’s AGENTD_CODEX_PRICES, under the session’s codex.prices', () => {
    const server = {
      'gpt-5.4': { input: 9, cachedInput: 1, output: 90 },
      'house-*': { input: 1, cachedInput: 0, output: 2 },
    };
    const session = { 'gpt-5.4': { input: 7, cachedInput: 0.7, output: 70 } };
    expect(pricesOf(spec(), {})).toEqual(defaultCodexPrices);
    expect(pricesOf(spec(), { [pricesVariable]: JSON.stringify(server) })['gpt-5.4']).toEqual(
      server['gpt-5.4'],
    );
    const all = pricesOf(spec({ codex: { prices: session } }), { [pricesVariable]: JSON.stringify(server) });
    expect(all['gpt-5.4']).toEqual(session['gpt-5.4']);
    expect(all['house-*']).toEqual(server['house-*']);
    expect(all['gpt-5.5']).toEqual(defaultCodexPrices['gpt-5.5']);
  });

  it('pricesOf: a malformed table is invalid_config, naming where it came from', () => {
    const bad = [
      [spec(), { [pricesVariable]: 'not json' }],
      [spec(), { [pricesVariable]: '{"gpt-5": 3}' }],
      [spec(), { [pricesVariable]: '{"gpt-5": {"input": -1, "cachedInput": 0, "output": 1}}' }],
      [spec({ codex: { prices: { 'gpt-5': { input: 1, output: 2 } } } }), {}],
    ] as const;
    for (const [each, env] of bad) {
      expect(() => pricesOf(each, env)).toThrowError(ConfigError);
      try {
        pricesOf(each, env);
      } catch (error) {
        expect((error as ConfigError).code).toBe('invalid_config');
        expect((error as Error).message).toMatch(/AGENTD_CODEX_PRICES|codex\.prices/);
      }
    }
  });

  it('priceOf: the exact name first, else the longest matching prefix entry, else null', () => {
    const table = {
      'gpt-6*': { input: 1, cachedInput: 0, output: 1 },
      'gpt-6-luna*': { input: 2, cachedInput: 0, output: 2 },
      'gpt-6-luna': { input: 3, cachedInput: 0, output: 3 },
    };
    expect(priceOf(table, 'gpt-6-luna')?.input).toBe(3);
    expect(priceOf(table, 'gpt-6-luna-mini')?.input).toBe(2);
    expect(priceOf(table, 'gpt-6-sol')?.input).toBe(1);
    expect(priceOf(table, 'o9')).toBeNull();
    expect(priceOf(table, null)).toBeNull();
  });

  it('costOf: cached input is part of the input, charged at its own price', () => {
    const usage = {
      inputTokens: 1_000_000,
      cacheReadInputTokens: 250_000,
      outputTokens: 100_000,
      cacheCreationInputTokens: 0,
    };
    // 750k × $2 + 250k × $0.20 + 100k × $10, per million.
    expect(costOf(usage, { input: 2, cachedInput: 0.2, output: 10 })).toBeCloseTo(1.5 + 0.05 + 1, 10);
    expect(
      costOf(
        { ...usage, outputTokens: 0, inputTokens: 0, cacheReadInputTokens: 0 },
        { input: 2, cachedInput: 0.2, output: 10 },
      ),
    ).toBe(0);
  });
});
