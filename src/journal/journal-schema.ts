import * as v from 'valibot';
import type { AgentErrorInfo, ErrorCode, ModelUsage, TokenUsage } from '../backends/agent-event.js';
import type { Seed } from '../seeds/seed-schema.js';
import { type InteractionRecord, interactionKinds, interactionStates } from '../store/store.js';
import type { JournalData, JournalEventType } from './journal-event.js';

/*
 * Journaled event data is read back from the store: another version, a manual edit or a damaged page
 * may have left something else there. Each event is checked once, here, against its type's schema;
 * everything after works with typed records. Unknown extra fields are kept (newer writers may add some).
 */

const record = v.record(v.string(), v.unknown());
const raw = { raw: v.optional(v.unknown()) };

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

const agentError: v.GenericSchema<unknown, AgentErrorInfo> = v.looseObject({
  code: v.picklist(errorCodes),
  message: v.string(),
  transient: v.boolean(),
  status: v.optional(v.number()),
});

const tokenUsage = {
  inputTokens: v.number(),
  outputTokens: v.number(),
  cacheReadInputTokens: v.number(),
  cacheCreationInputTokens: v.number(),
};
const usage: v.GenericSchema<unknown, TokenUsage> = v.looseObject(tokenUsage);
const modelUsage: v.GenericSchema<unknown, ModelUsage> = v.looseObject({
  ...tokenUsage,
  costUsd: v.number(),
});

const interaction: v.GenericSchema<unknown, InteractionRecord> = v.looseObject({
  id: v.string(),
  sessionId: v.string(),
  executionId: v.nullable(v.string()),
  kind: v.picklist(interactionKinds),
  toolName: v.string(),
  toolUseId: v.nullable(v.string()),
  request: record,
  state: v.picklist(interactionStates),
  answer: v.nullable(record),
  createdAt: v.number(),
  answeredAt: v.nullable(v.number()),
});

/**
 * The seed a run started with. seed-file.ts checked it in full (ids, bounds, duplicates) when the run
 * was created; read back, its shape is what the driver relies on.
 */
const seed: v.GenericSchema<unknown, Seed> = v.looseObject({
  goal: v.string(),
  criteria: v.array(
    v.looseObject({
      id: v.string(),
      description: v.string(),
      check: v.optional(v.string()),
      expect: v.optional(v.number()),
      timeout: v.optional(v.number()),
    }),
  ),
  constraints: v.optional(v.array(v.string())),
  role: v.optional(v.string()),
  model: v.optional(v.string()),
  tools: v.optional(v.array(v.string())),
  mcpServers: v.optional(v.record(v.string(), record)),
  cwd: v.optional(v.string()),
  budgetUsd: v.optional(v.number()),
  maxIterations: v.optional(v.number()),
  metadata: v.optional(record),
});

/** One schema per journal event type; the compiler checks each against the event's TypeScript type. */
export const journalDataSchemas: { [T in JournalEventType]: v.GenericSchema<unknown, JournalData<T>> } = {
  'session.started': v.looseObject({
    ...raw,
    sessionId: v.string(),
    model: v.string(),
    tools: v.array(v.string()),
    cwd: v.string(),
    permissionMode: v.string(),
  }),
  'agent.message': v.looseObject({ ...raw, text: v.string(), messageId: v.nullable(v.string()) }),
  'agent.thinking': v.looseObject({ ...raw, thinking: v.string() }),
  'agent.tool_call': v.looseObject({
    ...raw,
    toolUseId: v.string(),
    name: v.string(),
    input: record,
    detail: v.string(),
    parentToolUseId: v.nullable(v.string()),
  }),
  'agent.tool_result': v.looseObject({
    ...raw,
    toolUseId: v.string(),
    content: v.string(),
    isError: v.boolean(),
  }),
  'agent.text_delta': v.looseObject({ ...raw, text: v.string() }),
  'agent.retry': v.looseObject({
    ...raw,
    attempt: v.number(),
    maxRetries: v.number(),
    delayMs: v.number(),
    by: v.picklist(['claude', 'codex', 'agentd']),
    error: agentError,
  }),
  'agent.compacted': v.looseObject({
    ...raw,
    trigger: v.picklist(['manual', 'auto']),
    preTokens: v.number(),
    postTokens: v.nullable(v.number()),
  }),
  'agent.turn.completed': v.looseObject({
    ...raw,
    subtype: v.string(),
    isError: v.boolean(),
    result: v.nullable(v.string()),
    sessionId: v.string(),
    usage,
    costUsd: v.number(),
    costEstimated: v.optional(v.boolean()),
    numTurns: v.number(),
    durationMs: v.number(),
    durationApiMs: v.number(),
    modelUsage: v.record(v.string(), modelUsage),
    inputIds: v.array(v.string()),
  }),
  'agent.error': v.looseObject({ ...raw, error: agentError }),
  'agent.tool_permission': v.looseObject({
    ...raw,
    toolUseId: v.string(),
    behavior: v.picklist(['allow', 'deny']),
  }),
  'input.delivered': v.looseObject({ ...raw, inputId: v.string() }),
  'claude.message': v.looseObject({ ...raw, subtype: v.string() }),
  'agent.native': v.looseObject({ ...raw, backend: v.string(), subtype: v.string() }),
  'input.accepted': v.looseObject({
    inputId: v.string(),
    messageId: v.string(),
    text: v.string(),
    command: v.optional(v.boolean()),
    traceparent: v.optional(v.string()),
    ifBusy: v.optional(v.picklist(['interrupt', 'rollback'])),
    source: v.optional(
      v.variant('kind', [
        v.object({
          kind: v.literal('peer'),
          sessionId: v.string(),
          role: v.nullable(v.string()),
          permissionMode: v.string(),
        }),
        v.object({
          kind: v.literal('monitor'),
          monitorId: v.string(),
          permissionMode: v.string(),
          fromCursor: v.number(),
          throughCursor: v.number(),
        }),
      ]),
    ),
  }),
  'execution.started': v.looseObject({ executionId: v.string(), epoch: v.number(), pid: v.number() }),
  'execution.stopped': v.looseObject({ executionId: v.string(), reason: v.string() }),
  'execution.failed': v.looseObject({
    executionId: v.string(),
    error: v.looseObject({ code: v.string(), message: v.string() }),
    uncertainInputIds: v.array(v.string()),
  }),
  'interaction.requested': v.looseObject({ interaction }),
  'interaction.answered': v.looseObject({
    interactionId: v.string(),
    answer: record,
    answeredBy: v.optional(v.string()),
  }),
  'work.settled': v.looseObject({ executionId: v.string() }),
  'control.interrupt': v.looseObject({
    reason: v.string(),
    inputId: v.optional(v.string()),
    rollback: v.optional(v.boolean()),
    byInputId: v.optional(v.string()),
  }),
  'turn.interrupted': v.looseObject({
    inputId: v.string(),
    byInputId: v.nullable(v.string()),
    rolledBack: v.boolean(),
    fromCursor: v.number(),
    toCursor: v.number(),
  }),
  'interaction.auto_decided': v.looseObject({
    toolName: v.string(),
    toolUseId: v.nullable(v.string()),
    input: record,
    decision: v.picklist(['approve', 'deny']),
    rule: v.looseObject({
      id: v.string(),
      rule: v.string(),
      scope: v.picklist(['session', 'role', 'organization']),
      target: v.string(),
    }),
  }),
  'session.archived': v.looseObject({
    reason: v.picklist(['role_changed', 'new', 'archived']),
    roleVersion: v.nullable(v.number()),
  }),
  'peer.sent': v.looseObject({ to: v.string(), inputId: v.string(), messageId: v.string() }),
  'budget.exceeded': v.looseObject({
    scope: v.picklist(['session', 'role', 'organization']),
    target: v.string(),
    limitUsd: v.number(),
    spentUsd: v.number(),
  }),
  'schedule.fired': v.looseObject({
    scheduleId: v.string(),
    occurrence: v.string(),
    late: v.boolean(),
    missed: v.number(),
    messageId: v.string(),
  }),
  'monitor.started': v.looseObject({
    monitorId: v.string(),
    command: v.string(),
    cwd: v.string(),
    persistent: v.boolean(),
    wake: v.boolean(),
    deadlineAt: v.nullable(v.number()),
    permissionMode: v.string(),
    pid: v.number(),
    processStartTime: v.nullable(v.string()),
    commandPid: v.number(),
    commandStartTime: v.nullable(v.string()),
    stderrLog: v.string(),
  }),
  'monitor.observation': v.looseObject({ monitorId: v.string(), lines: v.array(v.string()) }),
  'monitor.stop_requested': v.looseObject({
    monitorId: v.string(),
    reason: v.picklist(['stopped', 'session_stopped']),
  }),
  'monitor.stopped': v.looseObject({
    monitorId: v.string(),
    reason: v.picklist(['exited', 'deadline', 'stopped', 'session_stopped', 'output_limit', 'lost']),
    exitCode: v.nullable(v.number()),
    signal: v.nullable(v.string()),
    outputBytes: v.number(),
  }),
  'goal.set': v.looseObject({ condition: v.string() }),
  'goal.evaluated': v.looseObject({ condition: v.string(), met: v.literal(false), reason: v.string() }),
  'goal.met': v.looseObject({ condition: v.string() }),
  'goal.cleared': v.looseObject({ condition: v.nullable(v.string()) }),
  'seed.started': v.looseObject({ seed, cwd: v.string() }),
  'seed.iteration': v.looseObject({
    iteration: v.number(),
    messageId: v.string(),
    failing: v.array(v.string()),
  }),
  'seed.criterion': v.looseObject({
    criterionId: v.string(),
    state: v.picklist(['in_progress', 'met', 'blocked']),
    evidence: v.string(),
  }),
  'seed.check': v.looseObject({
    criterionId: v.string(),
    iteration: v.number(),
    command: v.string(),
    exitCode: v.nullable(v.number()),
    expected: v.number(),
    passed: v.boolean(),
    timedOut: v.boolean(),
    outputTail: v.string(),
    durationMs: v.number(),
  }),
  'seed.finished': v.looseObject({
    outcome: v.picklist(['satisfied', 'unsatisfied', 'budget_exceeded', 'interrupted', 'failed']),
    reason: v.string(),
    iterations: v.number(),
  }),
};

export function isJournalEventType(type: string): type is JournalEventType {
  return Object.hasOwn(journalDataSchemas, type);
}
