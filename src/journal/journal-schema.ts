import { z } from 'zod';
import type { AgentErrorInfo, ErrorCode, ModelUsage, TokenUsage } from '../backends/agent-event.js';
import { seedSchema } from '../seeds/seed-schema.js';
import { type InteractionRecord, interactionKinds, interactionStates } from '../store/store.js';
import type { JournalData, JournalEventType } from './journal-event.js';

/*
 * Journaled event data is read back from the store: another version, a manual edit or a damaged page
 * may have left something else there. Each event is checked once, here, against its type's schema;
 * everything after works with typed records. Unknown extra fields are kept (newer writers may add some).
 */

const record = z.record(z.string(), z.unknown());
const raw = { raw: z.unknown().optional() };

const errorCodes = [
  'rate_limit',
  'overloaded',
  'server_error',
  'timeout',
  'network',
  'authentication',
  'permission',
  'invalid_request',
  'budget_exceeded',
  'max_turns',
  'context_overflow',
  'cancelled',
  'unknown',
] as const satisfies readonly ErrorCode[];

const agentError: z.ZodType<AgentErrorInfo> = z.looseObject({
  code: z.enum(errorCodes),
  message: z.string(),
  transient: z.boolean(),
  status: z.number().optional(),
});

const tokenUsage = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
};
const usage: z.ZodType<TokenUsage> = z.looseObject(tokenUsage);
const modelUsage: z.ZodType<ModelUsage> = z.looseObject({ ...tokenUsage, costUsd: z.number() });

const interaction: z.ZodType<InteractionRecord> = z.looseObject({
  id: z.string(),
  sessionId: z.string(),
  executionId: z.string().nullable(),
  kind: z.enum(interactionKinds),
  toolName: z.string(),
  toolUseId: z.string().nullable(),
  request: record,
  state: z.enum(interactionStates),
  answer: record.nullable(),
  createdAt: z.number(),
  answeredAt: z.number().nullable(),
});

/** One schema per journal event type; the compiler checks each against the event's TypeScript type. */
export const journalDataSchemas: { [T in JournalEventType]: z.ZodType<JournalData<T>> } = {
  'session.started': z.looseObject({
    ...raw,
    sessionId: z.string(),
    model: z.string(),
    tools: z.array(z.string()),
    cwd: z.string(),
    permissionMode: z.string(),
  }),
  'agent.message': z.looseObject({ ...raw, text: z.string(), messageId: z.string().nullable() }),
  'agent.thinking': z.looseObject({ ...raw, thinking: z.string() }),
  'agent.tool_call': z.looseObject({
    ...raw,
    toolUseId: z.string(),
    name: z.string(),
    input: record,
    detail: z.string(),
    parentToolUseId: z.string().nullable(),
  }),
  'agent.tool_result': z.looseObject({
    ...raw,
    toolUseId: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
  'agent.text_delta': z.looseObject({ ...raw, text: z.string() }),
  'agent.retry': z.looseObject({
    ...raw,
    attempt: z.number(),
    maxRetries: z.number(),
    delayMs: z.number(),
    by: z.enum(['claude', 'codex', 'agentd']),
    error: agentError,
  }),
  'agent.compacted': z.looseObject({
    ...raw,
    trigger: z.enum(['manual', 'auto']),
    preTokens: z.number(),
    postTokens: z.number().nullable(),
  }),
  'agent.turn.completed': z.looseObject({
    ...raw,
    subtype: z.string(),
    isError: z.boolean(),
    result: z.string().nullable(),
    sessionId: z.string(),
    usage,
    costUsd: z.number(),
    costEstimated: z.boolean().optional(),
    numTurns: z.number(),
    durationMs: z.number(),
    durationApiMs: z.number(),
    modelUsage: z.record(z.string(), modelUsage),
    inputIds: z.array(z.string()),
  }),
  'agent.error': z.looseObject({ ...raw, error: agentError }),
  'agent.tool_permission': z.looseObject({
    ...raw,
    toolUseId: z.string(),
    behavior: z.enum(['allow', 'deny']),
  }),
  'input.delivered': z.looseObject({ ...raw, inputId: z.string() }),
  'claude.message': z.looseObject({ ...raw, subtype: z.string() }),
  'agent.native': z.looseObject({ ...raw, backend: z.string(), subtype: z.string() }),
  'input.accepted': z.looseObject({
    inputId: z.string(),
    messageId: z.string(),
    text: z.string(),
    command: z.boolean().optional(),
    traceparent: z.string().optional(),
    ifBusy: z.enum(['interrupt', 'rollback']).optional(),
    source: z
      .discriminatedUnion('kind', [
        z.object({
          kind: z.literal('peer'),
          sessionId: z.string(),
          role: z.string().nullable(),
          permissionMode: z.string(),
        }),
        z.object({
          kind: z.literal('monitor'),
          monitorId: z.string(),
          permissionMode: z.string(),
          fromCursor: z.number(),
          throughCursor: z.number(),
        }),
      ])
      .optional(),
  }),
  'execution.started': z.looseObject({ executionId: z.string(), epoch: z.number(), pid: z.number() }),
  'execution.stopped': z.looseObject({ executionId: z.string(), reason: z.string() }),
  'execution.failed': z.looseObject({
    executionId: z.string(),
    error: z.looseObject({ code: z.string(), message: z.string() }),
    uncertainInputIds: z.array(z.string()),
  }),
  'interaction.requested': z.looseObject({ interaction }),
  'interaction.answered': z.looseObject({
    interactionId: z.string(),
    answer: record,
    answeredBy: z.string().optional(),
  }),
  'work.settled': z.looseObject({ executionId: z.string() }),
  'control.interrupt': z.looseObject({
    reason: z.string(),
    inputId: z.string().optional(),
    rollback: z.boolean().optional(),
    byInputId: z.string().optional(),
  }),
  'turn.interrupted': z.looseObject({
    inputId: z.string(),
    byInputId: z.string().nullable(),
    rolledBack: z.boolean(),
    fromCursor: z.number(),
    toCursor: z.number(),
  }),
  'interaction.auto_decided': z.looseObject({
    toolName: z.string(),
    toolUseId: z.string().nullable(),
    input: record,
    decision: z.enum(['approve', 'deny']),
    rule: z.looseObject({
      id: z.string(),
      rule: z.string(),
      scope: z.enum(['session', 'role', 'organization']),
      target: z.string(),
    }),
  }),
  'session.archived': z.looseObject({
    reason: z.enum(['role_changed', 'new', 'archived']),
    roleVersion: z.number().nullable(),
  }),
  'peer.sent': z.looseObject({ to: z.string(), inputId: z.string(), messageId: z.string() }),
  'budget.exceeded': z.looseObject({
    scope: z.enum(['session', 'role', 'organization']),
    target: z.string(),
    limitUsd: z.number(),
    spentUsd: z.number(),
  }),
  'schedule.fired': z.looseObject({
    scheduleId: z.string(),
    occurrence: z.string(),
    late: z.boolean(),
    missed: z.number(),
    messageId: z.string(),
  }),
  'monitor.started': z.looseObject({
    monitorId: z.string(),
    command: z.string(),
    cwd: z.string(),
    persistent: z.boolean(),
    wake: z.boolean(),
    deadlineAt: z.number().nullable(),
    permissionMode: z.string(),
    pid: z.number(),
    processStartTime: z.string().nullable(),
    commandPid: z.number(),
    commandStartTime: z.string().nullable(),
    stderrLog: z.string(),
  }),
  'monitor.observation': z.looseObject({ monitorId: z.string(), lines: z.array(z.string()) }),
  'monitor.stop_requested': z.looseObject({
    monitorId: z.string(),
    reason: z.enum(['stopped', 'session_stopped']),
  }),
  'monitor.stopped': z.looseObject({
    monitorId: z.string(),
    reason: z.enum(['exited', 'deadline', 'stopped', 'session_stopped', 'output_limit', 'lost']),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    outputBytes: z.number(),
  }),
  'goal.set': z.looseObject({ condition: z.string() }),
  'goal.evaluated': z.looseObject({ condition: z.string(), met: z.literal(false), reason: z.string() }),
  'goal.met': z.looseObject({ condition: z.string() }),
  'goal.cleared': z.looseObject({ condition: z.string().nullable() }),
  'seed.started': z.looseObject({ seed: seedSchema, cwd: z.string() }),
  'seed.iteration': z.looseObject({
    iteration: z.number(),
    messageId: z.string(),
    failing: z.array(z.string()),
  }),
  'seed.criterion': z.looseObject({
    criterionId: z.string(),
    state: z.enum(['in_progress', 'met', 'blocked']),
    evidence: z.string(),
  }),
  'seed.check': z.looseObject({
    criterionId: z.string(),
    iteration: z.number(),
    command: z.string(),
    exitCode: z.number().nullable(),
    expected: z.number(),
    passed: z.boolean(),
    timedOut: z.boolean(),
    outputTail: z.string(),
    durationMs: z.number(),
  }),
  'seed.finished': z.looseObject({
    outcome: z.enum(['satisfied', 'unsatisfied', 'budget_exceeded', 'interrupted', 'failed']),
    reason: z.string(),
    iterations: z.number(),
  }),
};

export function isJournalEventType(type: string): type is JournalEventType {
  return Object.hasOwn(journalDataSchemas, type);
}
