import { z } from 'zod';
import { StoreError } from '../../errors/agentd-error.js';
import type { A2aPushConfigRecord, A2aPushDelivery, A2aTaskRecord } from '../a2a-store.js';
import {
  deliveryStates,
  type EventRecord,
  type ExecutionRecord,
  executionStates,
  type InputRecord,
  type InteractionRecord,
  interactionKinds,
  interactionStates,
  type LeaseRecord,
  type SessionRecord,
  sessionStates,
} from '../store.js';

/*
 * Rows read back from the data file are a trust boundary: another version of agentd, a manual edit
 * or a damaged page may have left something else there. Each row is checked once here, so the rest of
 * the store works with typed records.
 */

/** A TEXT column holding JSON, parsed and then checked by `inner`. */
export function jsonText<T extends z.ZodType>(inner: T) {
  return z
    .string()
    .transform((text, context): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        context.addIssue({ code: 'custom', message: 'is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(inner);
}

export const jsonObject = z.record(z.string(), z.unknown());
export const millis = z.number().int();

const sessionRow = z
  .object({
    id: z.string(),
    state: z.enum(sessionStates),
    provider: z.string(),
    organization: z.string().nullable(),
    role: z.string().nullable(),
    role_version: z.number().int().nullable(),
    model: z.string().nullable(),
    cwd: z.string(),
    cost_usd: z.number(),
    config: jsonText(jsonObject),
    launch_id: z.string().nullable(),
    native_session_id: z.string().nullable(),
    title: z.string().nullable(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): SessionRecord => ({
      id: row.id,
      state: row.state,
      provider: row.provider,
      organization: row.organization,
      role: row.role,
      roleVersion: row.role_version,
      model: row.model,
      cwd: row.cwd,
      costUsd: row.cost_usd,
      config: row.config,
      launchId: row.launch_id,
      nativeSessionId: row.native_session_id,
      title: row.title,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const executionRow = z
  .object({
    id: z.string(),
    session_id: z.string(),
    state: z.enum(executionStates),
    epoch: z.number().int(),
    pid: z.number().int().nullable(),
    process_start_time: z.string().nullable(),
    error: jsonText(jsonObject).nullable(),
    created_at: millis,
    updated_at: millis,
    ended_at: millis.nullable(),
  })
  .transform(
    (row): ExecutionRecord => ({
      id: row.id,
      sessionId: row.session_id,
      state: row.state,
      epoch: row.epoch,
      pid: row.pid,
      processStartTime: row.process_start_time,
      error: row.error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      endedAt: row.ended_at,
    }),
  );

const inputRow = z
  .object({
    id: z.string(),
    session_id: z.string(),
    message_id: z.string(),
    text: z.string(),
    state: z.enum(deliveryStates),
    execution_id: z.string().nullable(),
    created_at: millis,
    updated_at: millis,
  })
  .transform(
    (row): InputRecord => ({
      id: row.id,
      sessionId: row.session_id,
      messageId: row.message_id,
      text: row.text,
      state: row.state,
      executionId: row.execution_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );

const eventRow = z
  .object({
    session_id: z.string(),
    cursor: z.number().int().positive(),
    type: z.string(),
    data: jsonText(z.unknown()),
    execution_id: z.string().nullable(),
    created_at: millis,
  })
  .transform(
    (row): EventRecord => ({
      sessionId: row.session_id,
      cursor: row.cursor,
      type: row.type,
      data: row.data,
      executionId: row.execution_id,
      createdAt: row.created_at,
    }),
  );

const interactionRow = z
  .object({
    id: z.string(),
    session_id: z.string(),
    execution_id: z.string().nullable(),
    kind: z.enum(interactionKinds),
    tool_name: z.string(),
    tool_use_id: z.string().nullable(),
    request: jsonText(jsonObject),
    state: z.enum(interactionStates),
    answer: jsonText(jsonObject).nullable(),
    created_at: millis,
    answered_at: millis.nullable(),
  })
  .transform(
    (row): InteractionRecord => ({
      id: row.id,
      sessionId: row.session_id,
      executionId: row.execution_id,
      kind: row.kind,
      toolName: row.tool_name,
      toolUseId: row.tool_use_id,
      request: row.request,
      state: row.state,
      answer: row.answer,
      createdAt: row.created_at,
      answeredAt: row.answered_at,
    }),
  );

/** A lease row whose owner is NULL has been released: there is no lease to report. */
const leaseRow = z
  .object({
    session_id: z.string(),
    owner: z.string().nullable(),
    epoch: z.number().int(),
    expires_at: millis,
    pid: z.number().int().nullable(),
    process_start_time: z.string().nullable(),
  })
  .transform((row): LeaseRecord | null =>
    row.owner === null
      ? null
      : {
          sessionId: row.session_id,
          owner: row.owner,
          epoch: row.epoch,
          expiresAt: row.expires_at,
          pid: row.pid,
          processStartTime: row.process_start_time,
        },
  );

const a2aTaskRow = z
  .object({
    id: z.string(),
    context_id: z.string(),
    state: z.string(),
    status_timestamp: z.string(),
    task: jsonText(jsonObject),
    updated_at: millis,
  })
  .transform(
    (row): A2aTaskRecord => ({
      id: row.id,
      contextId: row.context_id,
      state: row.state,
      statusTimestamp: row.status_timestamp,
      task: row.task,
      updatedAt: row.updated_at,
    }),
  );

const a2aPushConfigRow = z
  .object({
    task_id: z.string(),
    id: z.string(),
    config: jsonText(jsonObject),
    wire_version: z.string(),
    created_at: millis,
  })
  .transform(
    (row): A2aPushConfigRecord => ({
      taskId: row.task_id,
      id: row.id,
      config: row.config,
      wireVersion: row.wire_version,
      createdAt: row.created_at,
    }),
  );

/** A config joined with one of its task's queued events (pendingA2aPushDeliveries). */
const a2aPushDeliveryRow = z
  .object({
    task_id: z.string(),
    config_id: z.string(),
    config: jsonText(jsonObject),
    wire_version: z.string(),
    config_created_at: millis,
    seq: z.number().int(),
    event_id: z.string(),
    event: jsonText(jsonObject),
    task: jsonText(jsonObject).nullable(),
    created_at: millis,
  })
  .transform(
    (row): A2aPushDelivery => ({
      config: {
        taskId: row.task_id,
        id: row.config_id,
        config: row.config,
        wireVersion: row.wire_version,
        createdAt: row.config_created_at,
      },
      event: {
        taskId: row.task_id,
        eventId: row.event_id,
        seq: row.seq,
        event: row.event,
        task: row.task,
        createdAt: row.created_at,
      },
    }),
  );

const transcriptEntryRow = z.object({ entry: jsonText(jsonObject) }).transform((row) => row.entry);

export function parser<T>(table: string, schema: z.ZodType<T, unknown>): (row: unknown) => T {
  return (row) => {
    const result = schema.safeParse(row);
    if (!result.success) {
      throw new StoreError({
        code: 'store_corrupt',
        message: `a row of table ${table} is not valid: ${z.prettifyError(result.error)}`,
        cause: result.error,
      });
    }
    return result.data;
  };
}

export const toSessionRecord = parser('sessions', sessionRow);
export const toExecutionRecord = parser('executions', executionRow);
export const toInputRecord = parser('inputs', inputRow);
export const toEventRecord = parser('events', eventRow);
export const toInteractionRecord = parser('interactions', interactionRow);
export const toLeaseRecord = parser('leases', leaseRow);
export const toTranscriptEntry = parser('transcript_entries', transcriptEntryRow);
export const toA2aTaskRecord = parser('a2a_tasks', a2aTaskRow);
export const toA2aPushConfigRecord = parser('a2a_push_configs', a2aPushConfigRow);
export const toA2aPushDelivery = parser('a2a_push_events', a2aPushDeliveryRow);
