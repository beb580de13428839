import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/serve.js';
import { toolResults } from '../../src/testing/index.js';
import { createHarness, type Harness, waitFor } from './helpers.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** A minimal OTLP/HTTP (JSON) collector: records every span it is sent. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
      };
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, server };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue ?? value.arrayValue;
}

describe('OpenTelemetry', () => {
  let harness: Harness;
  let collector: Awaited<ReturnType<typeof startCollector>>;

  beforeAll(async () => {
    collector = await startCollector();
    harness = await createHarness({
      script: (request) =>
        toolResults(request).length > 0
          ? { text: 'listed', usage: { input_tokens: 40, output_tokens: 7 } }
          : {
              content: [
                { type: 'tool_use', name: 'Bash', input: { command: 'echo traced', description: 'echo' } },
              ],
            },
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'agentd-test',
        CLAUDE_ALLOWED_TOOLS: 'Bash',
      },
    });
  });

  afterAll(async () => {
    await harness?.cleanup();
    await new Promise<void>((resolve) => collector?.server.close(() => resolve()));
  });

  it('a turn is an invoke_agent span in the caller trace, with a child execute_tool span and GenAI usage', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    const { session } = await harness.runtime.createSession({
      cwd: harness.cwd,
      config: { allowedTools: ['Bash'] },
    });
    await harness.runtime.send(session.id, {
      text: 'run echo',
      messageId: 'traced-1',
      traceparent: `00-${traceId}-${parentSpanId}-01`,
    });
    await waitFor(
      async () => {
        const events = await harness.runtime.store.readEvents(session.id);
        return events.some((event) => event.type === 'work.settled');
      },
      { timeoutMs: 60_000, what: 'the turn to settle' },
    );
    // Stopping the worker flushes its spans.
    await harness.runtime.stop(session.id);
    const turn = await waitFor(
      () => collector.spans.find((span) => span.name === 'invoke_agent claude' && span.traceId === traceId),
      { timeoutMs: 30_000, what: 'the turn span' },
    );
    expect(turn.parentSpanId).toBe(parentSpanId);
    expect(attribute(turn, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(Number(attribute(turn, 'gen_ai.usage.output_tokens'))).toBeGreaterThan(0);
    expect(Number(attribute(turn, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
    expect(attribute(turn, 'gen_ai.conversation.id')).toBe(session.id);
    const tool = collector.spans.find((span) => span.name === 'execute_tool Bash');
    expect(tool).toBeDefined();
    expect(tool?.traceId).toBe(traceId);
    expect(tool?.parentSpanId).toBe(turn.spanId);
    expect(attribute(tool!, 'gen_ai.tool.name')).toBe('Bash');
  });

  it('the trace context of HTTP and A2A requests reaches the turn span', async () => {
    const server = await startServer({
      port: 0,
      dataDir: join(harness.root, 'served'),
      env: harness.env,
      a2a: true,
    });
    try {
      const httpTrace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
      const a2aTrace = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
      const created = await fetch(`${server.url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${httpTrace}-1111111111111111-01` },
        body: JSON.stringify({ prompt: 'run echo', messageId: 'http-1', cwd: harness.cwd }),
      });
      expect(created.status).toBe(201);
      const sent = await fetch(`${server.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${a2aTrace}-2222222222222222-01` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: '1',
          method: 'message/send',
          params: {
            message: { messageId: 'a2a-1', role: 'user', parts: [{ kind: 'text', text: 'run echo' }] },
          },
        }),
      });
      const reply = (await sent.json()) as { result?: { status?: { state?: string } } };
      expect(reply.result?.status?.state).toBe('completed');
      for (const session of await server.runtime.listSessions()) {
        await waitFor(
          async () =>
            (await server.runtime.store.readEvents(session.id)).some(
              (event) => event.type === 'work.settled',
            ),
          { timeoutMs: 60_000, what: 'the turn to settle' },
        );
        await server.runtime.stop(session.id);
      }
      for (const [traceId, parentSpanId] of [
        [httpTrace, '1111111111111111'],
        [a2aTrace, '2222222222222222'],
      ] as const) {
        const turn = await waitFor(
          () =>
            collector.spans.find((span) => span.name === 'invoke_agent claude' && span.traceId === traceId),
          { timeoutMs: 30_000, what: `the turn span of trace ${traceId}` },
        );
        expect(turn.parentSpanId).toBe(parentSpanId);
      }
    } finally {
      await server.close();
    }
  });
});
