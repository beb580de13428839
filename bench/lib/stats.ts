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
