import { context, propagation, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { version } from '../version.js';
import { tracingEnabled } from './tracing-enabled.js';

type Env = Record<string, string | undefined>;

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
export { context, trace, tracingEnabled };
