import { type Context, createTraceState, isSpanContextValid, ROOT_CONTEXT, trace } from '@opentelemetry/api';

/** `version-traceId-spanId-flags`, as W3C Trace Context defines `traceparent`. */
const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The context a W3C `traceparent` (and optional `tracestate`) names; the root context when absent
 * or malformed. Parsed here with the API alone: a worker continues a trace without loading the
 * OpenTelemetry SDK and its propagators (hundreds of ms of module loading on `agentd run`'s path).
 */
export function contextFromTraceparent(traceparent: string | undefined, tracestate?: string): Context {
  const match = traceparentPattern.exec(traceparent?.trim() ?? '');
  if (!match) return ROOT_CONTEXT;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest)) return ROOT_CONTEXT;
  const spanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
    ...(tracestate ? { traceState: createTraceState(tracestate) } : {}),
  };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}
