import type { Context } from 'hono';

const traceparentPattern = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A W3C `traceparent` value if it is well formed; a malformed one is ignored, as the spec asks. */
export function validTraceparent(value: string | string[] | undefined): { traceparent?: string } {
  const traceparent = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return traceparent && traceparentPattern.test(traceparent) ? { traceparent } : {};
}

/**
 * The request's W3C trace context, for the runtime to carry into the worker (whose turn span then
 * continues the caller's trace).
 */
export function traceContextOf(c: Context): { traceparent?: string } {
  return validTraceparent(c.req.header('traceparent'));
}
