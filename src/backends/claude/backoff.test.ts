import { describe, expect, it } from 'vitest';
import type { RetryConfig } from '../../config/claude-config.js';
import { backoffDelay } from './backoff.js';

const config: RetryConfig = { maxRetries: 5, initialDelayMs: 1000, maxDelayMs: 5000 };
const highest = () => 1;
const lowest = () => 0;

describe('backoffDelay', () => {
  it('doubles from the initial delay with each attempt', () => {
    expect([1, 2, 3].map((attempt) => backoffDelay(config, attempt, highest))).toEqual([1000, 2000, 4000]);
  });

  it('never exceeds the largest delay', () => {
    expect(backoffDelay(config, 4, highest)).toBe(5000);
    expect(backoffDelay(config, 30, highest)).toBe(5000);
  });

  it('keeps half of the delay fixed and randomizes the other half', () => {
    expect(backoffDelay(config, 2, lowest)).toBe(1000);
    expect(backoffDelay(config, 2, () => 0.5)).toBe(1500);
    expect(backoffDelay(config, 2, highest)).toBe(2000);
  });

  it('stays within [half, whole] of the capped delay for any random value', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const ceiling = Math.min(config.maxDelayMs, config.initialDelayMs * 2 ** (attempt - 1));
      for (const value of [0, 0.001, 0.25, 0.5, 0.75, 0.999]) {
        const delay = backoffDelay(config, attempt, () => value);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('treats attempt 0 or below like the first attempt', () => {
    expect(backoffDelay(config, 0, highest)).toBe(1000);
    expect(backoffDelay(config, -3, highest)).toBe(1000);
  });

  it('uses Math.random by default and stays within bounds', () => {
    for (let index = 0; index < 50; index++) {
      const delay = backoffDelay(config, 3);
      expect(delay).toBeGreaterThanOrEqual(2000);
      expect(delay).toBeLessThanOrEqual(4000);
    }
  });

  it('a zero initial delay retries at once', () => {
    expect(backoffDelay({ ...config, initialDelayMs: 0 }, 3, highest)).toBe(0);
  });
});
