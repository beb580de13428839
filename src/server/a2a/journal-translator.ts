import { type Part, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { JournalPosition, JournalRecord } from '../../journal/journal-event.js';
import type { InteractionRecord } from '../../store/store.js';
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

/** Where an A2A event comes from in the journal: its cursor and time. */
type Position = Pick<JournalPosition, 'cursor' | 'createdAt'>;

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

  translate(event: JournalRecord): AgentExecutionEvent[] {
    if (this.phase === 'done') return [];
    if (this.phase === 'waiting') return this.beforeDelivery(event);
    switch (event.type) {
      case 'agent.message': {
        const { text } = event.data;
        if (!text) return [];
        this.lastText = text;
        return [this.status(event, TaskState.TASK_STATE_WORKING, [textPart(text)])];
      }
      case 'agent.thinking':
        return [
          this.status(event, TaskState.TASK_STATE_WORKING, [
            textPart(event.data.thinking, { kagent_thought: true }),
          ]),
        ];
      case 'agent.tool_call': {
        const { toolUseId: id, name, input } = event.data;
        this.toolNames.set(id, name);
        const part = dataPart({ name, args: input, id }, { [kagentTypeKey]: 'function_call' });
        return [this.status(event, TaskState.TASK_STATE_WORKING, [part])];
      }
      case 'agent.tool_result': {
        const { toolUseId: id, content, isError } = event.data;
        const part = dataPart(
          { id, name: this.toolNames.get(id) ?? '', response: { result: content, isError } },
          { [kagentTypeKey]: 'function_response' },
        );
        return [this.status(event, TaskState.TASK_STATE_WORKING, [part])];
      }
      case 'agent.retry': {
        const { attempt, maxRetries, error } = event.data;
        const text = `retrying (attempt ${attempt} of ${maxRetries}) after ${error.code}: ${error.message}`;
        return [this.status(event, TaskState.TASK_STATE_WORKING, [textPart(text)])];
      }
      case 'interaction.requested': {
        const { interaction } = event.data;
        this.pending.set(interaction.id, interaction);
        return [this.inputRequired(event)];
      }
      case 'interaction.answered': {
        const interaction = this.pending.get(event.data.interactionId);
        if (!interaction) return [];
        this.pending.delete(interaction.id);
        if (this.pending.size > 0) return [this.inputRequired(event)];
        return [
          this.status(event, TaskState.TASK_STATE_WORKING, [
            textPart(answeredText(interaction, event.data.answer)),
          ]),
        ];
      }
      case 'agent.turn.completed': {
        this.lastTurn = event.data;
        if (event.data.isError) return [];
        const result = event.data.result ?? this.lastText ?? '';
        return [this.artifact(event, result), this.finish(event, TaskState.TASK_STATE_COMPLETED)];
      }
      case 'agent.error': {
        const { error } = event.data;
        const state =
          error.code === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
        return [this.finish(event, state, `${error.code}: ${error.message}`, error.code)];
      }
      case 'execution.failed': {
        if (this.pending.size > 0) return [];
        const { error } = event.data;
        const text = `the worker failed during the turn (${error.code}: ${error.message}); the message's delivery is uncertain, send it again to retry`;
        return [this.finish(event, TaskState.TASK_STATE_FAILED, text, error.code)];
      }
      case 'execution.stopped':
        if (this.pending.size > 0) return [];
        return [
          this.finish(
            event,
            TaskState.TASK_STATE_CANCELED,
            `the session was stopped (${event.data.reason})`,
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
    const event = { cursor: options.cursor, createdAt: options.createdAt };
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

  private beforeDelivery(event: JournalRecord): AgentExecutionEvent[] {
    if (event.type === 'input.delivered' && event.data.inputId === this.task.inputId) {
      this.phase = 'running';
      return [];
    }
    if (event.type === 'execution.failed' && event.data.uncertainInputIds.includes(this.task.inputId)) {
      const { error } = event.data;
      const text = `the worker failed before the message was confirmed delivered (${error.code}: ${error.message}); send it again to retry`;
      return [this.finish(event, TaskState.TASK_STATE_FAILED, text, error.code)];
    }
    return [];
  }

  private messageId(cursor: number, suffix = ''): string {
    return `${this.task.taskId}:${cursor}${suffix}`;
  }

  private status(
    event: Position,
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

  private inputRequired(event: Position): AgentExecutionEvent {
    return this.status(
      event,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      inputRequiredParts(this.pendingInteractions()),
    );
  }

  private artifact(event: Position, text: string): AgentExecutionEvent {
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
    event: Position,
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

function answeredText(interaction: InteractionRecord, recorded: Record<string, unknown>): string {
  if (interaction.kind === 'question') {
    const answers = typeof recorded.answers === 'object' && recorded.answers ? recorded.answers : {};
    return `answered: ${Object.entries(answers)
      .map(([question, value]) => `${question} → ${String(value)}`)
      .join('; ')}`;
  }
  if (recorded.decision === 'approve') return `approved ${interaction.toolName}`;
  const reason = typeof recorded.reason === 'string' && recorded.reason ? `: ${recorded.reason}` : '';
  return `denied ${interaction.toolName}${reason}`;
}
