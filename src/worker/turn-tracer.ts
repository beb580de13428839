import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AgentEvent } from '../backends/agent-event.js';
import { contextFromTraceparent } from '../telemetry/trace-context.js';
import type { Tracing } from '../telemetry/tracing.js';

/**
 * Spans for the OpenTelemetry GenAI semantic conventions: one `invoke_agent` span per turn (a
 * child of the trace that sent the input, when it carried a `traceparent`) and one `execute_tool`
 * span per tool call inside it.
 */
export class TurnTracer {
  private turn: Span | undefined;
  private readonly tools = new Map<string, Span>();

  constructor(
    private readonly tracing: Tracing,
    private readonly attributes: { sessionId: string; model: string | null },
  ) {}

  startTurn(options: { inputId: string; traceparent?: string }): void {
    this.endTurn();
    this.turn = this.tracing.tracer.startSpan(
      'invoke_agent claude',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.system': 'anthropic',
          'gen_ai.agent.name': 'claude',
          'gen_ai.conversation.id': this.attributes.sessionId,
          ...(this.attributes.model ? { 'gen_ai.request.model': this.attributes.model } : {}),
          'agentd.session.id': this.attributes.sessionId,
          'agentd.input.id': options.inputId,
        },
      },
      contextFromTraceparent(options.traceparent),
    );
  }

  onEvent(event: AgentEvent): void {
    const turn = this.turn;
    if (!turn) return;
    switch (event.type) {
      case 'session.started':
        if (event.model) turn.setAttribute('gen_ai.response.model', event.model);
        return;
      case 'agent.tool_call': {
        const span = this.tracing.tracer.startSpan(
          `execute_tool ${event.name}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': event.name,
              'gen_ai.tool.call.id': event.toolUseId,
              'agentd.tool.detail': event.detail,
            },
          },
          trace.setSpan(contextFromTraceparent(undefined), turn),
        );
        this.tools.set(event.toolUseId, span);
        return;
      }
      case 'agent.tool_result': {
        const span = this.tools.get(event.toolUseId);
        if (!span) return;
        if (event.isError)
          span.setStatus({ code: SpanStatusCode.ERROR, message: event.content.slice(0, 200) });
        span.end();
        this.tools.delete(event.toolUseId);
        return;
      }
      case 'agent.retry':
        turn.addEvent('retry', { attempt: event.attempt, by: event.by, 'error.type': event.error.code });
        return;
      case 'agent.turn.completed':
        turn.setAttributes({
          'gen_ai.usage.input_tokens':
            event.usage.inputTokens + event.usage.cacheReadInputTokens + event.usage.cacheCreationInputTokens,
          'gen_ai.usage.output_tokens': event.usage.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': event.usage.cacheReadInputTokens,
          'gen_ai.usage.cache_creation.input_tokens': event.usage.cacheCreationInputTokens,
          'agentd.cost_usd': event.costUsd,
          'agentd.num_turns': event.numTurns,
          'agentd.duration_api_ms': event.durationApiMs,
          'gen_ai.response.finish_reasons': [event.subtype],
        });
        if (!event.isError) this.endTurn();
        return;
      case 'agent.error':
        turn.setAttribute('error.type', event.error.code);
        turn.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
        this.endTurn();
        return;
      default:
        return;
    }
  }

  endTurn(): void {
    for (const span of this.tools.values()) span.end();
    this.tools.clear();
    this.turn?.end();
    this.turn = undefined;
  }
}
