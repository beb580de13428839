import type { MessageResult, SessionStatus } from '../runtime/messages.js';
import type { CliContext } from './context.js';
import { formatCost } from './render.js';
import { printJson, printLine } from './runtime-context.js';

function statusLines(status: SessionStatus | null): string[] {
  if (!status) return ['no session yet: the next message starts one'];
  const { session, live, budget } = status;
  const rows: Array<[string, string]> = [
    ['session', `${session.id} (${session.state})`],
    ['role', session.role ? `${session.organization}/${session.role} version ${session.roleVersion}` : '-'],
    ['model', session.model ?? '(default)'],
    ['worker', live ? `${live.id} ${live.state}${live.pid ? ` pid ${live.pid}` : ''}` : 'none'],
    ['waiting', `${status.waitingInputs} input${status.waitingInputs === 1 ? '' : 's'}`],
    ['approvals', `${status.pendingInteractions} pending`],
    ['spent', formatCost(status.costUsd)],
  ];
  if (budget)
    rows.push([
      'budget',
      `reached: ${budget.scope} ${budget.target} spent ${formatCost(budget.spentUsd)} of ${formatCost(budget.limitUsd)} (agentd budgets set)`,
    ]);
  return rows.map(([name, value]) => `${name.padEnd(10)}${value}`);
}

/** What a person reads of a message's outcome. */
function messageLines(result: MessageResult, suffix: string): string[] {
  if (result.kind === 'input') return [`${result.input.messageId} ${result.input.state}${suffix}`];
  switch (result.command) {
    case 'compact':
      return [`${result.input.messageId} ${result.input.state} (/compact)${suffix}`];
    case 'goal':
      return [`${result.input.messageId} ${result.input.state} (/goal)${suffix}`];
    case 'help':
      return [
        'commands (start with // to send text that begins with /):',
        ...result.commands.map((command) => `  ${command.name.padEnd(10)}${command.description}`),
      ];
    case 'status':
      return statusLines(result.status);
    case 'stop':
      return [result.execution ? `stopping ${result.execution.id}` : 'no live worker'];
    case 'pending':
      return result.interactions.length === 0
        ? ['nothing waiting for an answer']
        : result.interactions.map((each) => `${each.id} ${each.kind} ${each.toolName}`);
    case 'new':
      return [
        result.archived
          ? `archived ${result.archived.id}: the next message starts a new session`
          : 'no session to archive',
      ];
  }
}

/**
 * Prints what a message did. With `--json`: text gives its input (as `agentd send` always has),
 * with `kind: 'input'`; a command gives its result.
 */
export function printMessageResult(
  context: CliContext,
  result: MessageResult,
  options: { json?: boolean; showSession?: boolean } = {},
): void {
  if (options.json) {
    printJson(context, result.kind === 'input' ? { kind: 'input', ...result.input } : result);
    return;
  }
  const suffix = options.showSession && result.session ? ` session ${result.session.id}` : '';
  for (const line of messageLines(result, suffix)) printLine(context, line);
}
