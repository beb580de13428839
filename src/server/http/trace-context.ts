import type { Context } from 'hono';

const traceparentPattern = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The request's W3C trace context, for the runtime to carry into the worker (whose turn span then
 * continues the caller's trace). A malformed header is ignored, as the W3C spec asks.
 */
export function traceContextOf(c: Context): { traceparent?: string } {
  const traceparent = c.req.header('traceparent')?.trim().toLowerCase();
  return traceparent && traceparentPattern.test(traceparent) ? { traceparent } : {};
}
