import type { Seed } from './seed-schema.js';
import type { CriterionView } from './seed-view.js';

/** The name the agent sees the progress tool by. */
export const progressToolName = 'mcp__agentd__report_progress';

/** What the system prompt adds for a seed run: the constraints and how to report progress. */
export function seedSystemPrompt(seed: Seed): string {
  const lines = [
    'You are working on a goal with acceptance criteria, run by agentd.',
    `Report progress on each criterion with the ${progressToolName} tool: its id, a state (in_progress, met or blocked) and evidence (what you did, what shows it).`,
    'A criterion with a check is met only when agentd runs the check itself and it passes: your report never makes it met. When you end your turn, agentd runs every check; failing ones come back to you with their output.',
  ];
  if (seed.constraints?.length) {
    lines.push('', 'Constraints (always hold to them):');
    for (const constraint of seed.constraints) lines.push(`- ${constraint}`);
  }
  return lines.join('\n');
}

function criterionLine(
  index: number,
  criterion: { id: string; description: string; check?: string },
): string {
  return `${index + 1}. [${criterion.id}] ${criterion.description}${criterion.check ? ` (agentd checks: \`${criterion.check}\`)` : ''}`;
}

/** The first iteration's input: the goal and the numbered criteria. */
export function taskPrompt(seed: Seed): string {
  return [
    `Goal: ${seed.goal}`,
    '',
    'Acceptance criteria:',
    ...seed.criteria.map((criterion, index) => criterionLine(index, criterion)),
    '',
    'Work until every criterion is met, reporting each with report_progress, then end your turn.',
  ].join('\n');
}

/** A later iteration's input: the criteria not met, each check's output. */
export function retryPrompt(options: {
  iteration: number;
  maxIterations: number;
  unmet: CriterionView[];
}): string {
  const lines = [
    `agentd ran the checks: ${options.unmet.length} criteria are not met (iteration ${options.iteration} of ${options.maxIterations}).`,
  ];
  for (const criterion of options.unmet) {
    lines.push('', `[${criterion.id}] ${criterion.description}`);
    if (criterion.check && criterion.lastCheck) {
      const { exitCode, expected, timedOut, outputTail } = criterion.lastCheck;
      lines.push(
        `check \`${criterion.check}\` ${timedOut ? 'timed out' : `exited ${exitCode ?? 'on a signal'}, expected ${expected}`}; its output:`,
        '```',
        outputTail.trimEnd() || '(no output)',
        '```',
      );
    } else lines.push('not reported as met.');
  }
  lines.push('', 'Fix these, report progress, then end your turn.');
  return lines.join('\n');
}

/** The input that continues an iteration whose turn was cut short (a worker died, a stop, an interrupt). */
export function continuePrompt(iteration: number): string {
  return `Your previous turn (iteration ${iteration}) was cut short before it ended. Continue working on the acceptance criteria; do not repeat what is already done. Report progress, then end your turn.`;
}
