import { z } from 'zod';
import { inputSchema, named } from './schemas.js';

export const monitorStartBodySchema = named(
  'MonitorStartRequest',
  z.strictObject({
    command: z.string().min(1).describe("a shell command, run with /bin/sh -c in the session's cwd"),
    deadlineMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('how long it may run; default 600000 (10 minutes); not with persistent'),
    persistent: z.boolean().optional().describe('no deadline; outlives the worker'),
    wake: z.boolean().optional().describe("output starts the session's worker when none runs"),
  }),
);

export const monitorSchema = named(
  'Monitor',
  z.object({
    id: z.string(),
    sessionId: z.string(),
    command: z.string(),
    cwd: z.string(),
    persistent: z.boolean(),
    wake: z.boolean(),
    deadlineAt: z.number().nullable(),
    permissionMode: z.string(),
    state: z.enum(['running', 'stopping', 'stopped']),
    pid: z.number(),
    processStartTime: z.string().nullable(),
    commandPid: z.number(),
    commandStartTime: z.string().nullable(),
    stderrLog: z.string(),
    startedAt: z.number(),
    lines: z.number(),
    pendingLines: z.number(),
    stoppedAt: z.number().nullable(),
    reason: z.enum(['exited', 'deadline', 'stopped', 'session_stopped', 'output_limit', 'lost']).nullable(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    outputBytes: z.number().nullable(),
  }),
);

export const monitorResponseSchema = named('MonitorResponse', z.object({ monitor: monitorSchema }));
export const monitorListSchema = named('MonitorList', z.object({ monitors: z.array(monitorSchema) }));
export const monitorEventsSchema = named(
  'MonitorEvents',
  z.object({
    events: z.array(
      z.object({
        cursor: z.number(),
        type: z.enum(['monitor.started', 'monitor.observation', 'monitor.stop_requested', 'monitor.stopped']),
        data: z.record(z.string(), z.unknown()),
        createdAt: z.number(),
      }),
    ),
  }),
);

export const goalBodySchema = named(
  'GoalRequest',
  z.strictObject({
    objective: z.string().min(1).describe('the condition claude works towards, or clear'),
    messageId: z.string().min(1).max(200).optional(),
  }),
);
export const goalResponseSchema = named('GoalResponse', z.object({ input: inputSchema }));
