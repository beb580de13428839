import { context, propagation, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { version } from '../version.js';

type Env = Record<string, string | undefined>;

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
const falsy = (value: string | undefined) => value !== undefined && /^(0|false|no|off)$/i.test(value.trim());

/**
 * Tracing is off unless configured: an OTLP endpoint in the standard `OTEL_*` variables, or
 * `AGENT_TRACING=true` (kagent's switch; the exporter then uses its default endpoint).
 * `AGENT_TRACING=false` or `OTEL_SDK_DISABLED=true` turn it off.
 */
export function tracingEnabled(env: Env): boolean {
  if (truthy(env.OTEL_SDK_DISABLED) || falsy(env.AGENT_TRACING)) return false;
  return (
    truthy(env.AGENT_TRACING) ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

export interface Tracing {
  tracer: Tracer;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Starts an OTLP/HTTP exporter configured by the `OTEL_*` variables, or returns null when off. */
export function startTracing(env: Env, component: string): Tracing | null {
  if (!tracingEnabled(env)) return null;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'agentd',
      'service.version': version,
      'agentd.component': component,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
  });
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return { tracer: provider.getTracer('agentd', version), shutdown: () => provider.shutdown() };
}

export { contextFromTraceparent } from './trace-context.js';
export { context, trace };
