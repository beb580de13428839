import * as v from 'valibot';
import { StoreError } from '../../errors/agentd-error.js';
import { firstIssue } from '../../util/first-issue.js';
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
export function jsonText<T extends v.GenericSchema>(inner: T) {
  return v.pipe(v.string(), v.parseJson(undefined, 'is not valid JSON'), inner);
}

export const jsonObject = v.record(v.string(), v.unknown());
/** An INTEGER column. */
export const integer = v.pipe(v.number(), v.integer());
/** A time: milliseconds since the epoch. */
export const millis = integer;

const sessionRow = v.pipe(
  v.object({
    id: v.string(),
    state: v.picklist(sessionStates),
    provider: v.string(),
    organization: v.nullable(v.string()),
    role: v.nullable(v.string()),
    role_version: v.nullable(integer),
    model: v.nullable(v.string()),
    cwd: v.string(),
    cost_usd: v.number(),
    config: jsonText(jsonObject),
    launch_id: v.nullable(v.string()),
    native_session_id: v.nullable(v.string()),
    title: v.nullable(v.string()),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
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
  ),
);

const executionRow = v.pipe(
  v.object({
    id: v.string(),
    session_id: v.string(),
    state: v.picklist(executionStates),
    epoch: integer,
    pid: v.nullable(integer),
    process_start_time: v.nullable(v.string()),
    error: v.nullable(jsonText(jsonObject)),
    created_at: millis,
    updated_at: millis,
    ended_at: v.nullable(millis),
  }),
  v.transform(
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
  ),
);

const inputRow = v.pipe(
  v.object({
    id: v.string(),
    session_id: v.string(),
    message_id: v.string(),
    text: v.string(),
    state: v.picklist(deliveryStates),
    execution_id: v.nullable(v.string()),
    created_at: millis,
    updated_at: millis,
  }),
  v.transform(
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
  ),
);

const eventRow = v.pipe(
  v.object({
    session_id: v.string(),
    cursor: v.pipe(integer, v.minValue(1)),
    type: v.string(),
    data: jsonText(v.unknown()),
    execution_id: v.nullable(v.string()),
    created_at: millis,
  }),
  v.transform(
    (row): EventRecord => ({
      sessionId: row.session_id,
      cursor: row.cursor,
      type: row.type,
      data: row.data,
      executionId: row.execution_id,
      createdAt: row.created_at,
    }),
  ),
);

const interactionRow = v.pipe(
  v.object({
    id: v.string(),
    session_id: v.string(),
    execution_id: v.nullable(v.string()),
    kind: v.picklist(interactionKinds),
    tool_name: v.string(),
    tool_use_id: v.nullable(v.string()),
    request: jsonText(jsonObject),
    state: v.picklist(interactionStates),
    answer: v.nullable(jsonText(jsonObject)),
    created_at: millis,
    answered_at: v.nullable(millis),
  }),
  v.transform(
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
  ),
);

/** A lease row whose owner is NULL has been released: there is no lease to report. */
const leaseRow = v.pipe(
  v.object({
    session_id: v.string(),
    owner: v.nullable(v.string()),
    epoch: integer,
    expires_at: millis,
    pid: v.nullable(integer),
    process_start_time: v.nullable(v.string()),
  }),
  v.transform((row): LeaseRecord | null =>
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
  ),
);

const a2aTaskRow = v.pipe(
  v.object({
    id: v.string(),
    context_id: v.string(),
    state: v.string(),
    status_timestamp: v.string(),
    task: jsonText(jsonObject),
    updated_at: millis,
  }),
  v.transform(
    (row): A2aTaskRecord => ({
      id: row.id,
      contextId: row.context_id,
      state: row.state,
      statusTimestamp: row.status_timestamp,
      task: row.task,
      updatedAt: row.updated_at,
    }),
  ),
);

const a2aPushConfigRow = v.pipe(
  v.object({
    task_id: v.string(),
    id: v.string(),
    config: jsonText(jsonObject),
    wire_version: v.string(),
    created_at: millis,
  }),
  v.transform(
    (row): A2aPushConfigRecord => ({
      taskId: row.task_id,
      id: row.id,
      config: row.config,
      wireVersion: row.wire_version,
      createdAt: row.created_at,
    }),
  ),
);

/** A config joined with one of its task's queued events (pendingA2aPushDeliveries). */
const a2aPushDeliveryRow = v.pipe(
  v.object({
    task_id: v.string(),
    config_id: v.string(),
    config: jsonText(jsonObject),
    wire_version: v.string(),
    config_created_at: millis,
    seq: integer,
    event_id: v.string(),
    event: jsonText(jsonObject),
    task: v.nullable(jsonText(jsonObject)),
    created_at: millis,
  }),
  v.transform(
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
  ),
);

const transcriptEntryRow = v.pipe(
  v.object({ entry: jsonText(jsonObject) }),
  v.transform((row) => row.entry),
);

export function parser<T>(table: string, schema: v.GenericSchema<unknown, T>): (row: unknown) => T {
  return (row) => {
    const result = v.safeParse(schema, row);
    if (!result.success) {
      throw new StoreError({
        code: 'store_corrupt',
        message: `a row of table ${table} is not valid: ${firstIssue(result.issues)}`,
        cause: new v.ValiError(result.issues),
      });
    }
    return result.output;
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
