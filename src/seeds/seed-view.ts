import type { TokenUsage } from '../backends/agent-event.js';
import type { JournalRecord, ReportedState, SeedOutcome } from '../journal/journal-event.js';
import { defaultMaxIterations } from './seed-defaults.js';
import type { Seed } from './seed-schema.js';

/**
 * A criterion as agentd judges it. `verified`: its check passed in agentd's own run (met).
 * `claimed`: the agent reported it met; met only for a criterion without a check. `failed`: its
 * last check failed. `pending`, `in_progress`, `blocked`: what the agent last reported, if anything.
 */
export type CriterionState = 'pending' | 'in_progress' | 'blocked' | 'claimed' | 'verified' | 'failed';

export interface CheckResult {
  iteration: number;
  exitCode: number | null;
  expected: number;
  passed: boolean;
  timedOut: boolean;
  outputTail: string;
  durationMs: number;
}

export interface CriterionView {
  id: string;
  description: string;
  check: string | null;
  state: CriterionState;
  /** Whether it counts as met: verified by its check, or (no check) claimed by the agent. */
  met: boolean;
  /** The agent's last report through report_progress. */
  reported: { state: ReportedState; evidence: string } | null;
  lastCheck: CheckResult | null;
}

/** How the turn after the latest seed input ended, once it has. */
export type TurnEnd =
  | { kind: 'completed'; isError: boolean; subtype: string }
  | { kind: 'error'; code: string; message: string };

/** A seed run as its journal tells it (computed the same way by the worker, the runtime and clients). */
export interface SeedRunView {
  runId: string;
  seed: Seed;
  cwd: string;
  maxIterations: number;
  /** The iteration under way or last run (1-based). */
  iteration: number;
  /** The message id of each iteration's input, in order. */
  iterationMessageIds: string[];
  criteria: CriterionView[];
  finished: { outcome: SeedOutcome; reason: string; iterations: number } | null;
  /** The agentd input id and journal cursor of the latest input a seed iteration (or its continuation) sent. */
  latestSeedInput: { messageId: string; inputId: string; cursor: number } | null;
  /** How the turn after `latestSeedInput` ended; null while it runs or when it never ended. */
  latestTurnEnd: TurnEnd | null;
  /** Iterations whose checks ran to the end (a `seed.check` for every criterion with a check). */
  checkedIterations: number[];
  finalMessage: string | null;
  usage: TokenUsage;
  costUsd: number;
  /** The tool the agent is using now, if any. */
  currentTool: string | null;
  /** How the last execution ended, when none is live: why the run waits. */
  lastExecutionEnd: { kind: 'stopped' | 'failed'; reason: string } | null;
  startedAt: number;
  endedAt: number | null;
}

/** The view of a seed run from its session's journal; null when the session runs no seed. */
export function seedRunView(runId: string, records: Iterable<JournalRecord>): SeedRunView | null {
  let view: SeedRunView | null = null;
  const checksByIteration = new Map<number, Set<string>>();
  const openTools = new Map<string, string>();
  for (const record of records) {
    if (record.type === 'seed.started') {
      view = initialView(runId, record.data.seed, record.data.cwd, record.createdAt);
      continue;
    }
    if (!view) continue;
    apply(view, record, { checksByIteration, openTools });
  }
  if (view) {
    const checked = view.criteria.filter((criterion) => criterion.check !== null).map((c) => c.id);
    view.checkedIterations = [...checksByIteration.entries()]
      .filter(([, ids]) => checked.every((id) => ids.has(id)))
      .map(([iteration]) => iteration)
      .sort((a, b) => a - b);
    view.currentTool = [...openTools.values()].at(-1) ?? null;
  }
  return view;
}

function initialView(runId: string, seed: Seed, cwd: string, startedAt: number): SeedRunView {
  return {
    runId,
    seed,
    cwd,
    maxIterations: seed.maxIterations ?? defaultMaxIterations,
    iteration: 0,
    iterationMessageIds: [],
    criteria: seed.criteria.map((criterion) => ({
      id: criterion.id,
      description: criterion.description,
      check: criterion.check ?? null,
      state: 'pending',
      met: false,
      reported: null,
      lastCheck: null,
    })),
    finished: null,
    latestSeedInput: null,
    latestTurnEnd: null,
    checkedIterations: [],
    finalMessage: null,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    costUsd: 0,
    currentTool: null,
    lastExecutionEnd: null,
    startedAt,
    endedAt: null,
  };
}

function apply(
  view: SeedRunView,
  record: JournalRecord,
  state: { checksByIteration: Map<number, Set<string>>; openTools: Map<string, string> },
): void {
  switch (record.type) {
    case 'seed.iteration':
      view.iteration = record.data.iteration;
      view.iterationMessageIds[record.data.iteration - 1] = record.data.messageId;
      return;
    case 'seed.criterion': {
      const criterion = view.criteria.find((each) => each.id === record.data.criterionId);
      if (!criterion) return;
      criterion.reported = { state: record.data.state, evidence: record.data.evidence };
      judge(criterion);
      return;
    }
    case 'seed.check': {
      const criterion = view.criteria.find((each) => each.id === record.data.criterionId);
      if (!criterion) return;
      const { iteration, exitCode, expected, passed, timedOut, outputTail, durationMs } = record.data;
      criterion.lastCheck = { iteration, exitCode, expected, passed, timedOut, outputTail, durationMs };
      judge(criterion);
      const ids = state.checksByIteration.get(iteration) ?? new Set<string>();
      ids.add(criterion.id);
      state.checksByIteration.set(iteration, ids);
      return;
    }
    case 'seed.finished':
      view.finished = { ...record.data };
      view.endedAt = record.createdAt;
      return;
    case 'input.accepted':
      if (record.data.messageId.startsWith(`seed:${view.runId}:`)) {
        view.latestSeedInput = {
          messageId: record.data.messageId,
          inputId: record.data.inputId,
          cursor: record.cursor,
        };
        view.latestTurnEnd = null;
      }
      return;
    case 'agent.turn.completed':
      view.usage = addUsage(view.usage, record.data.usage);
      view.costUsd += record.data.costUsd;
      if (record.data.result) view.finalMessage = record.data.result;
      if (view.latestSeedInput)
        view.latestTurnEnd = {
          kind: 'completed',
          isError: record.data.isError,
          subtype: record.data.subtype,
        };
      state.openTools.clear();
      return;
    case 'agent.error':
      if (view.latestSeedInput)
        view.latestTurnEnd = {
          kind: 'error',
          code: record.data.error.code,
          message: record.data.error.message,
        };
      state.openTools.clear();
      return;
    case 'agent.message':
      if (record.data.text.trim()) view.finalMessage = record.data.text;
      return;
    case 'agent.tool_call':
      state.openTools.set(record.data.toolUseId, record.data.detail || record.data.name);
      return;
    case 'agent.tool_result':
      state.openTools.delete(record.data.toolUseId);
      return;
    case 'execution.started':
      view.lastExecutionEnd = null;
      return;
    case 'execution.stopped':
      view.lastExecutionEnd = { kind: 'stopped', reason: record.data.reason };
      state.openTools.clear();
      return;
    case 'execution.failed':
      view.lastExecutionEnd = { kind: 'failed', reason: record.data.error.message };
      state.openTools.clear();
      return;
    default:
      return;
  }
}

/** A checked criterion is met only by its check; the agent's word alone meets only one without. */
function judge(criterion: CriterionView): void {
  const reported = criterion.reported?.state;
  if (criterion.check !== null && criterion.lastCheck) {
    criterion.state = criterion.lastCheck.passed ? 'verified' : 'failed';
  } else if (reported === 'met') criterion.state = 'claimed';
  else criterion.state = reported ?? 'pending';
  criterion.met =
    criterion.state === 'verified' || (criterion.check === null && criterion.state === 'claimed');
}

function addUsage(total: TokenUsage, turn: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + turn.inputTokens,
    outputTokens: total.outputTokens + turn.outputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + turn.cacheReadInputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + turn.cacheCreationInputTokens,
  };
}
