import type { AgentEvent } from '../backends/agent-event.js';

export interface Output {
  write(text: string): void;
}

function firstLine(text: string, max = 100): string {
  const line = text.split('\n').find((entry) => entry.trim().length > 0) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 0.01 ? 4 : 2)}`;
}

/**
 * Prints events as a person reads them: assistant text as it streams, one line per tool call and
 * result, and a closing line with the session, tokens and cost.
 */
export class HumanRenderer {
  private streamedText = false;
  private atLineStart = true;

  /**
   * @param sessionId the agentd session the closing line names (what `agentd show` takes); without
   * it, the backend's own session id.
   */
  constructor(
    private readonly out: Output,
    private readonly err: Output,
    private readonly sessionId?: string,
  ) {}

  private text(text: string) {
    this.out.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string) {
    if (!this.atLineStart) this.out.write('\n');
    this.out.write(`${text}\n`);
    this.atLineStart = true;
  }

  render(event: AgentEvent): void {
    switch (event.type) {
      case 'agent.text_delta':
        this.streamedText = true;
        this.text(event.text);
        return;
      case 'agent.message':
        if (!this.streamedText) this.text(event.text.endsWith('\n') ? event.text : `${event.text}\n`);
        else if (!this.atLineStart) this.text('\n');
        this.streamedText = false;
        return;
      case 'agent.tool_call':
        this.line(`→ ${event.detail}`);
        return;
      case 'agent.tool_result':
        this.line(
          event.isError ? `← error: ${firstLine(event.content)}` : `← ${firstLine(event.content) || 'done'}`,
        );
        return;
      case 'agent.retry':
        this.err.write(
          `retrying (${event.by}, attempt ${event.attempt}/${event.maxRetries}, ${event.error.code}) in ${Math.round(event.delayMs / 100) / 10}s\n`,
        );
        return;
      case 'agent.compacted':
        this.line(`(conversation compacted: ${event.preTokens} tokens before)`);
        return;
      case 'agent.turn.completed': {
        const tokens =
          event.usage.inputTokens + event.usage.cacheReadInputTokens + event.usage.cacheCreationInputTokens;
        this.line(
          `session ${this.sessionId ?? event.sessionId} · ${tokens} in / ${event.usage.outputTokens} out tokens · ${formatCost(event.costUsd)} · ${event.numTurns} turn${event.numTurns === 1 ? '' : 's'}`,
        );
        return;
      }
      case 'agent.error':
        this.err.write(
          `${this.atLineStart ? '' : '\n'}error (${event.error.code}): ${event.error.message}\n`,
        );
        this.atLineStart = true;
        return;
      default:
        return;
    }
  }
}
