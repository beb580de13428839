/**
 * Deep equality of two JSON values, ignoring object key order (PostgreSQL's JSONB and a round
 * trip through a JSON column may both reorder keys). Used to decide whether a repeated request
 * with an idempotency key carries the same content as the first.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  return canonicalJson(left) === canonicalJson(right);
}

/** JSON text with object keys sorted, so equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
      return inner;
    }
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) {
      sorted[key] = (inner as Record<string, unknown>)[key];
    }
    return sorted;
  });
}
