import { type Part, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { EventRecord, InteractionRecord } from '../../store/store.js';
import { inputRequiredParts } from './hitl.js';
import { agentMessage, dataPart, kagentTypeKey, textPart } from './parts.js';
import { cursorMetadata } from './task-metadata.js';
import { type TurnUsage, usageMetadata } from './usage.js';

export interface TranslatorTask {
  taskId: string;
  contextId: string;
  /** The agentd input the task sent: its turn is the task's work. */
  inputId: string;
}

type Phase = 'waiting' | 'running' | 'done';

interface ErrorData {
  code?: string;
  message?: string;
  transient?: boolean;
}

/**
 * Turns a session's journal into the A2A events of one task, deterministically: the same journal
 * gives the same events with the same ids, so the task can be rebuilt, replayed to a subscriber
 * or reconciled after a restart from the journal alone, and applying an event twice changes nothing.
 *
 * The task's work is the turn of its input: events before the input is delivered belong to earlier
 * turns and are skipped; the turn ends with a successful result (COMPLETED with the result as an
 * artifact), an error (FAILED, or CANCELED when it was interrupted) or the worker's end.
 */
export class TaskTranslator {
  private phase: Phase = 'waiting';
  private readonly pending = new Map<string, InteractionRecord>();
  private readonly toolNames = new Map<string, string>();
  private lastTurn: TurnUsage | undefined;
  private lastText: string | undefined;
  private latestState: TaskState = TaskState.TASK_STATE_WORKING;

  constructor(private readonly task: TranslatorTask) {}

  get done(): boolean {
    return this.phase === 'done';
  }

  /** The input was delivered; the turn is under way. */
  get started(): boolean {
    return this.phase !== 'waiting';
  }

  /** Waiting for a person: an approval or question is pending. */
  get paused(): boolean {
    return this.phase === 'running' && this.pending.size > 0;
  }

  get state(): TaskState {
    return this.latestState;
  }

  pendingInteractions(): InteractionRecord[] {
    return [...this.pending.values()];
  }

  translate(event: EventRecord): AgentExecutionEvent[] {
    if (this.phase === 'done') return [];
    const data = (event.data ?? {}) as Record<string, unknown>;
    if (this.phase === 'waiting') return this.beforeDelivery(event, data);
    switch (event.type) {
      case 'agent.message': {
        const text = String(data.text ?? '');
        if (!text) return [];
        this.lastText = text;
        return [this.status(event, TaskState.TASK_STATE_WORKING, [textPart(text)])];
      }
      case 'agent.thinking':
        return [
          this.status(event, TaskState.TASK_STATE_WORKING, [
            textPart(String(data.thinking ?? ''), { kagent_thought: true }),
          ]),
        ];
      case 'agent.tool_call': {
        const id = String(data.toolUseId ?? '');
        const name = String(data.name ?? '');
        this.toolNames.set(id, name);
        const part = dataPart({ name, args: data.input ?? {}, id }, { [kagentTypeKey]: 'function_call' });
        return [this.status(event, TaskState.TASK_STATE_WORKING, [part])];
      }
      case 'agent.tool_result': {
        const id = String(data.toolUseId ?? '');
        const part = dataPart(
          {
            id,
            name: this.toolNames.get(id) ?? '',
            response: { result: data.content ?? '', isError: data.isError === true },
          },
          { [kagentTypeKey]: 'function_response' },
        );
        return [this.status(event, TaskState.TASK_STATE_WORKING, [part])];
      }
      case 'agent.retry': {
        const error = (data.error ?? {}) as ErrorData;
        const text = `retrying (attempt ${String(data.attempt)} of ${String(data.maxRetries)}) after ${error.code ?? 'an error'}: ${error.message ?? ''}`;
        return [this.status(event, TaskState.TASK_STATE_WORKING, [textPart(text)])];
      }
      case 'interaction.requested': {
        const interaction = data.interaction as InteractionRecord | undefined;
        if (!interaction?.id) return [];
        this.pending.set(interaction.id, interaction);
        return [this.inputRequired(event)];
      }
      case 'interaction.answered': {
        const interaction = this.pending.get(String(data.interactionId ?? ''));
        if (!interaction) return [];
        this.pending.delete(interaction.id);
        if (this.pending.size > 0) return [this.inputRequired(event)];
        return [
          this.status(event, TaskState.TASK_STATE_WORKING, [
            textPart(answeredText(interaction, data.answer)),
          ]),
        ];
      }
      case 'agent.turn.completed': {
        this.lastTurn = data as unknown as TurnUsage;
        if (data.isError === true) return [];
        const result = typeof data.result === 'string' ? data.result : (this.lastText ?? '');
        return [this.artifact(event, result), this.finish(event, TaskState.TASK_STATE_COMPLETED)];
      }
      case 'agent.error': {
        const error = (data.error ?? {}) as ErrorData;
        const state =
          error.code === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
        return [this.finish(event, state, `${error.code ?? 'error'}: ${error.message ?? ''}`, error.code)];
      }
      case 'execution.failed': {
        if (this.pending.size > 0) return [];
        const error = (data.error ?? {}) as ErrorData;
        const text = `the worker failed during the turn (${error.code ?? 'error'}: ${error.message ?? ''}); the message's delivery is uncertain, send it again to retry`;
        return [this.finish(event, TaskState.TASK_STATE_FAILED, text, error.code ?? 'worker_failed')];
      }
      case 'execution.stopped':
        if (this.pending.size > 0) return [];
        return [
          this.finish(
            event,
            TaskState.TASK_STATE_CANCELED,
            `the session was stopped (${String(data.reason ?? 'stopped')})`,
            'stopped',
          ),
        ];
      default:
        return [];
    }
  }

  /**
   * Ends the task for a reason the journal does not carry (the follower found no worker that could
   * deliver its message). `cursor` is the last journal cursor it saw.
   */
  fail(options: { cursor: number; createdAt: number; message: string; code: string }): AgentExecutionEvent[] {
    if (this.phase === 'done') return [];
    const event = { cursor: options.cursor, createdAt: options.createdAt } as EventRecord;
    return [
      this.finish(
        event,
        TaskState.TASK_STATE_FAILED,
        options.message,
        options.code,
        `failed-${options.cursor}`,
      ),
    ];
  }

  private beforeDelivery(event: EventRecord, data: Record<string, unknown>): AgentExecutionEvent[] {
    if (event.type === 'input.delivered' && data.inputId === this.task.inputId) {
      this.phase = 'running';
      return [];
    }
    const uncertain = Array.isArray(data.uncertainInputIds) ? data.uncertainInputIds : [];
    if (event.type === 'execution.failed' && uncertain.includes(this.task.inputId)) {
      const error = (data.error ?? {}) as ErrorData;
      const text = `the worker failed before the message was confirmed delivered (${error.code ?? 'error'}: ${error.message ?? ''}); send it again to retry`;
      return [this.finish(event, TaskState.TASK_STATE_FAILED, text, error.code ?? 'worker_failed')];
    }
    return [];
  }

  private messageId(cursor: number, suffix = ''): string {
    return `${this.task.taskId}:${cursor}${suffix}`;
  }

  private status(
    event: Pick<EventRecord, 'cursor' | 'createdAt'>,
    state: TaskState,
    parts?: Part[],
    metadata: Record<string, unknown> = {},
    idSuffix = '',
  ): AgentExecutionEvent {
    this.latestState = state;
    const { taskId, contextId } = this.task;
    const message = parts
      ? agentMessage({ messageId: this.messageId(event.cursor, idSuffix), taskId, contextId, parts })
      : undefined;
    return AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state, message, timestamp: new Date(event.createdAt).toISOString() },
      metadata: { ...cursorMetadata(event.cursor), ...metadata },
    });
  }

  private inputRequired(event: EventRecord): AgentExecutionEvent {
    return this.status(
      event,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      inputRequiredParts(this.pendingInteractions()),
    );
  }

  private artifact(event: EventRecord, text: string): AgentExecutionEvent {
    const { taskId, contextId } = this.task;
    return AgentEvent.artifactUpdate({
      taskId,
      contextId,
      artifact: {
        artifactId: `${taskId}:result`,
        name: 'result',
        description: 'The final answer of the turn',
        parts: [textPart(text)],
        metadata: undefined,
        extensions: [],
      },
      append: false,
      lastChunk: true,
      metadata: cursorMetadata(event.cursor),
    });
  }

  private finish(
    event: Pick<EventRecord, 'cursor' | 'createdAt'>,
    state: TaskState,
    text?: string,
    errorCode?: string,
    idSuffix = '',
  ): AgentExecutionEvent {
    this.phase = 'done';
    const metadata: Record<string, unknown> = this.lastTurn ? usageMetadata(this.lastTurn) : {};
    if (errorCode) metadata['agentd.errorCode'] = errorCode;
    return this.status(event, state, text === undefined ? undefined : [textPart(text)], metadata, idSuffix);
  }
}

function answeredText(interaction: InteractionRecord, answer: unknown): string {
  const recorded = (answer ?? {}) as { decision?: string; reason?: string; answers?: Record<string, string> };
  if (interaction.kind === 'question')
    return `answered: ${Object.entries(recorded.answers ?? {})
      .map(([question, value]) => `${question} → ${value}`)
      .join('; ')}`;
  if (recorded.decision === 'approve') return `approved ${interaction.toolName}`;
  return `denied ${interaction.toolName}${recorded.reason ? `: ${recorded.reason}` : ''}`;
}
