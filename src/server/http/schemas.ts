import { z } from 'zod';
import { permissionModes } from '../../config/claude-config.js';
import { answerScopes } from '../../runtime/answers.js';
import { ifBusyStrategies } from '../../runtime/double-texting.js';
import { attentionStates } from '../../runtime/session-overview.js';
import {
  deliveryStates,
  executionStates,
  interactionKinds,
  interactionStates,
  sessionStates,
} from '../../store/store.js';

/**
 * The HTTP API's bodies. Requests are parsed with these schemas; responses are documented by them
 * (and checked against them in the tests). `/openapi.json` is generated from this registry.
 */
export const apiSchemas = z.registry<{ id: string; description?: string }>();

/** Registers a schema under an id, for `/openapi.json`. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  apiSchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

export const clientId = z.string().min(1).max(200);
export const timestamp = z.number().int().describe('epoch milliseconds');

export const errorBodySchema = named(
  'Error',
  z.object({
    error: z.object({
      code: z
        .string()
        .describe(
          'stable code: invalid_input, invalid_json, invalid_config, unknown_command, unauthorized, budget_exceeded, forbidden, not_found, conflict, invalid_state, payload_too_large, unsupported_media_type, credentials_missing, skill_* (a refused or corrupt skill), internal',
        ),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  'Every error response has this shape.',
);

export const sessionSchema = named(
  'Session',
  z.object({
    id: z.string(),
    state: z.enum(sessionStates),
    provider: z.string(),
    organization: z.string().nullable(),
    role: z.string().nullable(),
    roleVersion: z.number().int().nullable().describe('the role version the session runs under'),
    model: z.string().nullable(),
    cwd: z.string(),
    costUsd: z.number().describe('total cost of its completed turns'),
    config: z.record(z.string(), z.unknown()),
    launchId: z.string().nullable(),
    nativeSessionId: z.string().nullable(),
    title: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);

export const executionSchema = named(
  'Execution',
  z.object({
    id: z.string(),
    sessionId: z.string(),
    state: z.enum(executionStates),
    epoch: z.number().int(),
    pid: z.number().int().nullable(),
    processStartTime: z.string().nullable(),
    error: z.record(z.string(), z.unknown()).nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    endedAt: timestamp.nullable(),
  }),
);

export const inputSchema = named(
  'Input',
  z.object({
    id: z.string(),
    sessionId: z.string(),
    messageId: z.string(),
    text: z.string(),
    state: z.enum(deliveryStates),
    executionId: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
  'A user message and its delivery state.',
);

export const eventSchema = named(
  'Event',
  z.object({
    sessionId: z.string(),
    cursor: z.number().int().min(1),
    type: z.string(),
    data: z.unknown(),
    executionId: z.string().nullable(),
    createdAt: timestamp,
  }),
  'One journal entry. Cursors grow by one per session, with no gaps.',
);

export const interactionSchema = named(
  'Interaction',
  z.object({
    id: z.string(),
    sessionId: z.string(),
    executionId: z.string().nullable(),
    kind: z.enum(interactionKinds),
    toolName: z.string(),
    toolUseId: z.string().nullable(),
    request: z.record(z.string(), z.unknown()),
    state: z.enum(interactionStates),
    answer: z.record(z.string(), z.unknown()).nullable(),
    createdAt: timestamp,
    answeredAt: timestamp.nullable(),
  }),
  'A pending approval (tool use) or question (AskUserQuestion).',
);

export const createSessionBodySchema = named(
  'CreateSessionRequest',
  z.strictObject({
    prompt: z.string().min(1).optional().describe('the first message; the worker starts on it at once'),
    messageId: clientId.optional().describe("the first message's id (idempotent)"),
    launchId: clientId.optional().describe('the same launch id returns the same session'),
    cwd: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    role: z
      .string()
      .min(1)
      .optional()
      .describe(
        "the role to run under (its current version): needs role.trigger; default: the organization's default role",
      ),
    organization: z.string().min(1).optional().describe('default: `default`'),
    permissionMode: z.enum(permissionModes).optional(),
    title: z.string().max(500).optional(),
    acceptPeers: z.boolean().optional().describe('take messages from other sessions; default false'),
    ifBusy: z
      .enum(ifBusyStrategies)
      .optional()
      .describe("the session's default for a message sent mid-turn; default enqueue"),
  }),
);

export const createSessionResponseSchema = named(
  'CreateSessionResponse',
  z.object({ session: sessionSchema, input: inputSchema.nullable(), created: z.boolean() }),
);

export const listSessionsQuerySchema = z.object({
  state: z.enum(sessionStates).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const sessionListSchema = named('SessionList', z.object({ sessions: z.array(sessionSchema) }));

export const overviewQuerySchema = z.object({
  state: z.enum(sessionStates).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const sessionDetailsSchema = named(
  'SessionDetails',
  z.object({
    session: sessionSchema,
    executions: z.array(executionSchema),
    inputs: z.array(inputSchema),
    live: executionSchema.nullable(),
    lastCursor: z.number().int(),
    hibernated: z
      .boolean()
      .describe('no worker runs since the last one left after its idle timeout; the next message wakes it'),
    goal: z
      .object({
        condition: z.string(),
        state: z.enum(['active', 'met']),
        setAt: z.number(),
        evaluations: z.number(),
        lastReason: z.string().nullable(),
        metAt: z.number().nullable(),
      })
      .nullable()
      .describe("claude's own goal (/goal), as its journaled lifecycle tells it"),
    monitors: z.array(z.record(z.string(), z.unknown())).describe("the session's monitors (see Monitor)"),
  }),
);

export const sessionOverviewListSchema = named(
  'SessionOverviewList',
  z.object({
    sessions: z.array(
      z.object({
        session: sessionSchema,
        attention: z
          .enum(attentionStates)
          .describe(
            'needs_you (pending interactions), working, idle, hibernated (no worker since the idle timeout; the next message wakes it), finished, failed, archived',
          ),
        title: z.string().nullable().describe('the title, else the first prompt'),
        live: executionSchema.nullable(),
        lastExecution: executionSchema.nullable(),
        pendingInteractions: z.number().int(),
        lastCursor: z.number().int(),
        lastActivityAt: timestamp,
      }),
    ),
  }),
);

export const sessionResponseSchema = named('SessionResponse', z.object({ session: sessionSchema }));

export const sendMessageBodySchema = named(
  'SendMessageRequest',
  z.strictObject({
    text: z
      .string()
      .min(1)
      .describe(
        'text for the agent, or a command: /compact, /stop, /status, /new, /pending, /help (`//text` sends `/text` as text)',
      ),
    messageId: clientId
      .optional()
      .describe('your id for the message: the same id and text is the same input; other text is a conflict'),
    ifBusy: z
      .enum(ifBusyStrategies)
      .optional()
      .describe(
        "if the session is mid-turn: enqueue (after the turn), reject (409 session_busy, nothing journaled), interrupt (the turn is interrupted, then this message delivered) or rollback (as interrupt, and the agent forgets the interrupted turn); default the session's, else enqueue",
      ),
  }),
);

export const inputResponseSchema = named('InputResponse', z.object({ input: inputSchema }));
export const inputListSchema = named('InputList', z.object({ inputs: z.array(inputSchema) }));

export const eventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional().describe('return events after this cursor'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('page size (default 100)'),
});

export const eventPageSchema = named(
  'EventPage',
  z.object({
    events: z.array(eventSchema),
    nextCursor: z.number().int().describe('pass as `after` to read the next page'),
    hasMore: z.boolean(),
  }),
);

export const listInteractionsQuerySchema = z.object({
  sessionId: z.string().min(1).optional(),
  state: z.enum(interactionStates).optional(),
});

export const interactionListSchema = named(
  'InteractionList',
  z.object({ interactions: z.array(interactionSchema) }),
);

const answerScopeFields = {
  scope: z
    .enum(answerScopes)
    .optional()
    .describe(
      'once (default); session: later uses of the tool matching `rule` in this session are decided the same way; rule: a permission rule of the role (or the organization)',
    ),
  rule: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe('Claude Code syntax, like Bash(npm test:*); default: the narrowest rule for this tool use'),
  ruleFor: z.enum(['role', 'organization']).optional().describe('with scope rule; default role'),
};

export const answerBodySchema = named(
  'Answer',
  z.union([
    z.strictObject({
      decision: z.literal('approve'),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      ...answerScopeFields,
    }),
    z.strictObject({
      decision: z.literal('deny'),
      reason: z.string().max(10_000).optional(),
      ...answerScopeFields,
    }),
    z.strictObject({ answers: z.record(z.string(), z.string()) }),
  ]),
  'Approve or deny a tool use, or answer the questions of an AskUserQuestion.',
);

export const interactionResponseSchema = named(
  'InteractionResponse',
  z.object({ interaction: interactionSchema }),
);

export const interruptBodySchema = named(
  'InterruptRequest',
  z.strictObject({ reason: z.string().max(1000).optional() }),
);

export const executionResponseSchema = named(
  'ExecutionResponse',
  z.object({ execution: executionSchema.nullable() }),
);

export const executionListSchema = named('ExecutionList', z.object({ executions: z.array(executionSchema) }));

export const interruptResponseSchema = named(
  'InterruptResponse',
  z.object({ interrupted: z.boolean().describe('false when no worker was live') }),
);

export const modelModes = ['anthropic', 'openrouter', 'offline', 'unconfigured'] as const;
export type ModelMode = (typeof modelModes)[number];

export const healthSchema = named(
  'Health',
  z.object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    uptimeSeconds: z.number(),
    model: z.enum(modelModes),
    sessions: z.object({ total: z.number().int(), active: z.number().int() }),
    liveWorkers: z.number().int(),
    maxLiveWorkers: z.number().int(),
    pendingInteractions: z.number().int(),
    store: z.object({ kind: z.string(), status: z.enum(['ok', 'error']) }),
    bridges: z.array(
      z.object({
        platform: z.string(),
        state: z.enum(['starting', 'connected', 'retrying', 'stopped']),
        failures: z.number().int(),
        lastError: z.string().optional(),
        nextAttemptAt: z.string().optional(),
      }),
    ),
  }),
);

export const readinessSchema = named(
  'Readiness',
  z.object({
    ready: z.boolean(),
    reasons: z.array(z.string()),
    liveWorkers: z.number().int(),
    maxLiveWorkers: z.number().int(),
  }),
);
