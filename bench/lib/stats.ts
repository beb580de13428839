export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summarize(values: number[]): { median: number; min: number; max: number; n: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

export const ms = (value: number): string => `${Math.round(value)} ms`;

/**
 * A distribution-free 95% confidence interval of the median (order statistics: the ranks the
 * binomial(n, 1/2) puts 2.5% on either side of, by the normal approximation); NaN below 6 values.
 */
export function medianInterval(values: number[]): { low: number; high: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n < 6) return { low: Number.NaN, high: Number.NaN };
  const half = (1.96 * Math.sqrt(n)) / 2;
  const low = Math.max(0, Math.floor(n / 2 - half));
  const high = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
  return { low: sorted[low]!, high: sorted[high]! };
}
