import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeConfig } from '../../config/claude-config.js';
import type { UserInput } from '../agent-backend.js';
import type { AgentErrorInfo, AgentEvent } from '../agent-event.js';
import { backoffDelay } from './backoff.js';
import { classifyError, classifyResult, errorInfo } from './classify.js';
import { convertMessage, type NativeMessage } from './convert.js';
import { TurnTimer } from './turn-timer.js';

const continuePrompt =
  'Continue where you left off. Your previous response was cut short by a transient API error; do not repeat actions you already completed.';

/** Event types that show the model acted on the turn's prompt. */
const modelEventTypes = new Set<AgentEvent['type']>([
  'agent.message',
  'agent.thinking',
  'agent.tool_call',
  'agent.tool_result',
  'agent.text_delta',
]);

/** Errors that no retry cures: stop at the first one. */
const credentialCodes = new Set<string>(['authentication', 'permission']);

export function userMessage(text: string, uuid: string): SDKUserMessage {
  return {
    type: 'user',
    message: { role: 'user', content: text },
    parent_tool_use_id: null,
    uuid: uuid as SDKUserMessage['uuid'],
  };
}

/** What a turn needs of its session: the query, its prompts, and the reasons to end early. */
export interface TurnHost {
  readonly config: ClaudeConfig;
  /** The query's messages, opened on first use (or again, after it was closed). */
  openQuery(): Promise<AsyncIterator<unknown>>;
  /** Sends a prompt to the open query. */
  push(prompt: SDKUserMessage): void;
  /** The query's next message (one already asked for between turns, or a new read), taken. */
  takeMessage(iterator: AsyncIterator<unknown>): Promise<IteratorResult<unknown>>;
  /** Why agentd ends the turn now (interrupt, timeout, credentials), if it does. */
  stopReason(): AgentErrorInfo | undefined;
  /** Ends the turn early for this reason. */
  stopTurn(reason: AgentErrorInfo): Promise<void>;
  closeQuery(): void;
  readonly closed: boolean;
  /** The turn's clock, while a turn runs. */
  timer: TurnTimer | undefined;
  /** Throws when the query's process could not be started: the prompt never reached claude. */
  assertStarted(): void;
}

/**
 * Runs one user input as a turn, with retries, until its result or a final error. Input ids are
 * reported once each; a retry prompt is agentd's, and reports the input it retries.
 */
export class TurnRunner {
  private readonly delivered = new Set<string>();
  /** The uuids of prompts agentd made to retry a turn, to the input they stand for. */
  private readonly retryPromptIds = new Map<string, string>();

  constructor(private readonly host: TurnHost) {}

  /** The events of one message of the query, as clients see them. */
  convert(message: NativeMessage): AgentEvent[] {
    const events: AgentEvent[] = [];
    for (const converted of convertMessage(message)) {
      const event = this.inputIdsOfRetries(converted);
      if (event.type === 'input.delivered') {
        if (this.delivered.has(event.inputId)) continue;
        this.delivered.add(event.inputId);
      }
      events.push(event);
    }
    return events;
  }

  async *run(input: UserInput): AsyncGenerator<AgentEvent> {
    const host = this.host;
    const retry = host.config.retry;
    let attempt = 0;
    let prompt = userMessage(input.text, input.id);
    /** The prompt is in claude's transcript: the model acted on it, or claude finished a turn with it. */
    let promptInSession = false;
    const timeoutSeconds = host.config.timeoutSeconds;
    const timer = new TurnTimer(timeoutSeconds * 1000, () => {
      void host.stopTurn(errorInfo('timeout', `the turn exceeded ${timeoutSeconds}s (CLAUDE_TIMEOUT)`));
    });
    host.timer = timer;
    try {
      for (;;) {
        let failure: AgentErrorInfo | null = null;
        let sawResult = false;
        try {
          const iterator = await host.openQuery();
          // A resumed session continues its deferred tool uses on its own; a prompt would be a new turn.
          if (!input.continueDeferred || attempt > 0) host.push(prompt);
          timer.start();
          for (;;) {
            const next = await host.takeMessage(iterator);
            if (next.done) break;
            const message = next.value as NativeMessage;
            for (const event of this.convert(message)) {
              if (modelEventTypes.has(event.type)) promptInSession = true;
              if (event.type === 'agent.retry' && credentialCodes.has(event.error.code)) {
                // claude retries a 401 for minutes; one is enough to know the credentials are wrong.
                void host.stopTurn(event.error);
              }
              yield event;
            }
            if (message.type === 'result') {
              sawResult = true;
              promptInSession = true;
              failure = classifyResult(message as Parameters<typeof classifyResult>[0]);
              break;
            }
          }
          if (!sawResult) failure = errorInfo('network', 'claude exited before the turn finished');
        } catch (error) {
          failure = classifyError(error);
        }
        timer.stop();
        // Not a failed turn: there was no claude to take it, and a retry would find none either.
        if (!sawResult) host.assertStarted();
        const stopReason = host.stopReason();
        if (stopReason) failure = stopReason;
        // A cancelled turn leaves claude usable; a timeout or a credential failure does not.
        if (!sawResult || (stopReason && stopReason.code !== 'cancelled')) host.closeQuery();
        if (failure === null) return;
        if (failure.transient && !stopReason && attempt < retry.maxRetries && !host.closed) {
          attempt++;
          const delayMs = backoffDelay(retry, attempt);
          yield {
            type: 'agent.retry',
            attempt,
            maxRetries: retry.maxRetries,
            delayMs,
            by: 'agentd',
            error: failure,
          };
          await sleep(delayMs);
          // Once the prompt is in the native session, sending it again would show the model the
          // question twice, and could make it act twice: continue the session instead. Only a
          // prompt that claude never took in (it exited first) is sent again.
          const retryId = randomUUID();
          this.retryPromptIds.set(retryId, input.id);
          prompt = userMessage(promptInSession ? continuePrompt : input.text, retryId);
          continue;
        }
        yield { type: 'agent.error', error: failure };
        return;
      }
    } finally {
      timer.stop();
      host.timer = undefined;
    }
  }

  /**
   * A retry prompt is agentd's, not the user's: its echo and its result report the input it
   * retries, so that clients only ever see the ids they sent.
   */
  private inputIdsOfRetries(event: AgentEvent): AgentEvent {
    if (event.type === 'input.delivered') {
      const inputId = this.retryPromptIds.get(event.inputId);
      return inputId === undefined ? event : { ...event, inputId };
    }
    if (event.type === 'agent.turn.completed' && event.inputIds.some((id) => this.retryPromptIds.has(id))) {
      const inputIds = [...new Set(event.inputIds.map((id) => this.retryPromptIds.get(id) ?? id))];
      return { ...event, inputIds };
    }
    return event;
  }
}
