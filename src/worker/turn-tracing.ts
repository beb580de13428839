import type { AgentEvent } from '../backends/agent-event.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../telemetry/tracing.js';
import { TurnTracer } from './turn-tracer.js';

export interface TurnTracingOptions {
  tracing: Tracing;
  store: Store;
  sessionId: string;
  model: string | null;
}

/**
 * The worker's tracing hookup: a turn's span continues the trace its input was sent with (the
 * `traceparent` of its `input.accepted` event), and the turn's events become its child spans.
 */
export class TurnTracing {
  private readonly tracer: TurnTracer;
  /** How far the journal was read for the trace context of inputs. */
  private scanCursor = 0;
  private readonly traceparents = new Map<string, string>();

  constructor(private readonly options: TurnTracingOptions) {
    this.tracer = new TurnTracer(options.tracing, { sessionId: options.sessionId, model: options.model });
  }

  /** Starts the span of a turn; `traced` false for a turn agentd made itself (no input sent it). */
  async startTurn(inputId: string, options: { traced: boolean }): Promise<void> {
    const traceparent = options.traced ? await this.traceparentOf(inputId) : undefined;
    this.tracer.startTurn({ inputId, ...(traceparent ? { traceparent } : {}) });
  }

  onEvent(event: AgentEvent): void {
    this.tracer.onEvent(event);
  }

  endTurn(): void {
    this.tracer.endTurn();
  }

  /** The trace context the input was sent with, read from its `input.accepted` journal event. */
  private async traceparentOf(inputId: string): Promise<string | undefined> {
    const { store, sessionId } = this.options;
    for (;;) {
      const page = await readJournal(store, sessionId, { after: this.scanCursor, limit: 1000 });
      for (const event of page) {
        this.scanCursor = event.cursor;
        if (event.type === 'input.accepted' && event.data.traceparent) {
          this.traceparents.set(event.data.inputId, event.data.traceparent);
        }
      }
      if (page.length < 1000) break;
    }
    const traceparent = this.traceparents.get(inputId);
    this.traceparents.delete(inputId);
    return traceparent;
  }
}
