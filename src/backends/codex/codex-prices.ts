import * as v from 'valibot';
import { ConfigError } from '../../errors/agentd-error.js';
import { firstIssue } from '../../util/first-issue.js';
import type { SessionSpec } from '../agent-backend.js';
import type { TokenUsage } from '../agent-event.js';

/** What a model costs, in USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Input tokens read from OpenAI's prompt cache. */
  cachedInput: number;
  output: number;
}

/** Prices by model name. A name ending in `*` prices every model it is a prefix of. */
export type PriceTable = Record<string, ModelPrice>;

/**
 * OpenAI's standard-tier list prices as published (OpenAI's pricing and model pages, restated by
 * third parties; checked 2026-12-02, sources in 0145). `gpt-6.1-sol`, the model `codex` 0.163.0 uses
 * when none is named, is not here: no price for it could be found, so its turns cost 0 until a
 * deployment prices it with `AGENTD_CODEX_PRICES` or `codex.prices`. Prices change: a deployment
 * that bills by them checks them. A model not listed costs 0: agentd does not guess.
 */
export const defaultCodexPrices: PriceTable = {
  // The GPT-5.6 family's cached input at a tenth of input, as for OpenAI's other newest models.
  'gpt-5.6-sol': { input: 5, cachedInput: 0.5, output: 30 },
  'gpt-5.6-terra': { input: 2.5, cachedInput: 0.25, output: 15 },
  'gpt-5.6-luna': { input: 1, cachedInput: 0.1, output: 6 },
  'gpt-5.5': { input: 5, cachedInput: 0.5, output: 30 },
  'gpt-5.4': { input: 2.5, cachedInput: 0.25, output: 15 },
  'gpt-5.4-mini': { input: 0.75, cachedInput: 0.075, output: 4.5 },
  'gpt-5.4-nano': { input: 0.2, cachedInput: 0.02, output: 1.25 },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
};

const usdPerMillion = v.pipe(v.number(), v.minValue(0));
const price = v.strictObject({ input: usdPerMillion, cachedInput: usdPerMillion, output: usdPerMillion });
const priceTable = v.record(v.pipe(v.string(), v.minLength(1)), price);

/** The variable of the server's environment that overrides (and adds to) the default prices. */
export const pricesVariable = 'AGENTD_CODEX_PRICES';

/**
 * The prices a Codex session is charged by: the defaults, then the server's `AGENTD_CODEX_PRICES`
 * (a JSON object of model → price), then the session's own `codex.prices` (from its role or its
 * creator). A malformed table is a configuration error, not a silent zero.
 */
export function pricesOf(spec: SessionSpec, env: Record<string, string | undefined>): PriceTable {
  const server = env[pricesVariable]?.trim();
  const stored = (spec.settings?.codex as { prices?: unknown } | undefined)?.prices;
  return {
    ...defaultCodexPrices,
    ...(server ? parsePrices(server, pricesVariable) : {}),
    ...(stored === undefined ? {} : checkedPrices(stored, 'codex.prices')),
  };
}

function parsePrices(text: string, source: string): PriceTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`${source} is not JSON: give an object of model → { input, cachedInput, output }`, {
      variable: source,
    });
  }
  return checkedPrices(value, source);
}

function checkedPrices(value: unknown, source: string): PriceTable {
  const parsed = v.safeParse(priceTable, value);
  if (!parsed.success) {
    throw new ConfigError(
      `${source} must map model names to { input, cachedInput, output } in USD per million tokens: ${firstIssue(parsed.issues)}`,
      { variable: source },
    );
  }
  return parsed.output;
}

/** The price of `model`: its own entry, else the longest `prefix*` entry that matches it. */
export function priceOf(prices: PriceTable, model: string | null | undefined): ModelPrice | null {
  if (!model) return null;
  const exact = prices[model];
  if (exact) return exact;
  let best: { length: number; price: ModelPrice } | null = null;
  for (const [name, each] of Object.entries(prices)) {
    if (!name.endsWith('*')) continue;
    const prefix = name.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.length))
      best = { length: prefix.length, price: each };
  }
  return best?.price ?? null;
}

/**
 * A turn's cost in USD. Codex counts cached input inside `input_tokens` (as the Responses API
 * does), so only the uncached rest is charged at the input price.
 */
export function costOf(usage: TokenUsage, modelPrice: ModelPrice): number {
  const cached = Math.min(usage.cacheReadInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (
    (fresh * modelPrice.input + cached * modelPrice.cachedInput + usage.outputTokens * modelPrice.output) /
    1e6
  );
}
