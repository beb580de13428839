type Env = Record<string, string | undefined>;

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
const falsy = (value: string | undefined) => value !== undefined && /^(0|false|no|off)$/i.test(value.trim());

/**
 * Tracing is off unless configured: an OTLP endpoint in the standard `OTEL_*` variables, or
 * `AGENT_TRACING=true` (kagent's switch; the exporter then uses its default endpoint).
 * `AGENT_TRACING=false` or `OTEL_SDK_DISABLED=true` turn it off. Its own module: a worker asks
 * before it loads the exporter.
 */
export function tracingEnabled(env: Env): boolean {
  if (truthy(env.OTEL_SDK_DISABLED) || falsy(env.AGENT_TRACING)) return false;
  return (
    truthy(env.AGENT_TRACING) ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}
