import type { SeedRunStatus } from '../runtime/seeds.js';
import { firstLineOf } from '../seeds/seed-lines.js';
import type { CriterionView, SeedRunView } from '../seeds/seed-view.js';
import type { Output } from './render.js';

const marks: Record<CriterionView['state'], string> = {
  verified: '✓',
  claimed: '~',
  failed: '✗',
  blocked: '!',
  in_progress: '…',
  pending: '·',
};

export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${(ms / 1000).toFixed(1)}s`;
}

function usageLine(view: SeedRunView): string {
  const { inputTokens, outputTokens, cacheReadInputTokens } = view.usage;
  return `tokens ${inputTokens + cacheReadInputTokens} in / ${outputTokens} out, $${view.costUsd.toFixed(4)}`;
}

function criterionLine(criterion: CriterionView, width: number): string {
  const evidence = criterion.reported?.evidence ? `  ${firstLineOf(criterion.reported.evidence, 60)}` : '';
  return `  ${marks[criterion.state]} ${criterion.id.padEnd(width)}  ${criterion.state.padEnd(11)}${evidence}`;
}

/** The live display's lines: each criterion, the current tool, iteration, usage, elapsed time. */
export function liveLines(view: SeedRunView, state: string, elapsedMs: number): string[] {
  const width = Math.max(...view.criteria.map((criterion) => criterion.id.length));
  return [
    `seed ${view.runId}  ${state}  iteration ${Math.max(view.iteration, 1)}/${view.maxIterations}  ${formatDuration(elapsedMs)}`,
    `  goal: ${firstLineOf(view.seed.goal, 90)}`,
    ...view.criteria.map((criterion) => criterionLine(criterion, width)),
    `  tool: ${view.currentTool ? firstLineOf(view.currentTool, 80) : '-'}`,
    `  ${usageLine(view)}`,
  ];
}

/**
 * Redraws the live display in place on a terminal: the cursor goes back to the display's first
 * line and everything below is cleared before the new lines are written.
 */
export class LiveDisplay {
  private drawn = 0;

  constructor(private readonly output: Output) {}

  draw(lines: string[]): void {
    const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    this.output.write(`${up}\x1b[J${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

/** The run's result as a person reads it: outcome, each criterion with evidence and check output, totals. */
export function resultText(status: SeedRunStatus): string {
  const lines = [`seed ${status.state}: ${status.reason}`];
  const width = Math.max(...status.criteria.map((criterion) => criterion.id.length));
  for (const criterion of status.criteria) {
    lines.push(criterionLine(criterion, width));
    if (criterion.reported?.evidence)
      lines.push(`      evidence: ${firstLineOf(criterion.reported.evidence, 200)}`);
    const check = criterion.lastCheck;
    if (criterion.check && check) {
      const how = check.timedOut
        ? 'timed out'
        : `exit ${check.exitCode ?? 'signal'}, expected ${check.expected}`;
      lines.push(`      check: ${criterion.check} (${how}, iteration ${check.iteration})`);
      const tail = check.outputTail.trimEnd().split('\n').slice(-5);
      if (tail.join('').trim()) for (const line of tail) lines.push(`        | ${line}`);
    } else if (criterion.check) lines.push(`      check: ${criterion.check} (not run yet)`);
  }
  lines.push(
    `  iterations ${Math.max(status.iteration, 1)} of ${status.maxIterations}, ${usageLine(status)}, ${formatDuration(status.durationMs)}`,
  );
  if (status.finalMessage) lines.push(`  final message: ${firstLineOf(status.finalMessage, 200)}`);
  return `${lines.join('\n')}\n`;
}

/** The result as JSON: what `seed status --json` prints, and the last line of `seed run --json`. */
export function resultJson(status: SeedRunStatus): Record<string, unknown> {
  return {
    runId: status.runId,
    state: status.state,
    reason: status.reason,
    goal: status.seed.goal,
    iterations: Math.max(status.iteration, 1),
    maxIterations: status.maxIterations,
    criteria: status.criteria,
    finalMessage: status.finalMessage,
    usage: status.usage,
    costUsd: status.costUsd,
    durationMs: status.durationMs,
    cwd: status.cwd,
    live: status.live ? { executionId: status.live.id, state: status.live.state } : null,
    startedAt: status.startedAt,
    endedAt: status.endedAt,
  };
}
