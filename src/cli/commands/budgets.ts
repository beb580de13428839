import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.js';
import { type BudgetScope, budgetScopes } from '../../store/org-storage.js';
import type { CliContext } from '../context.js';
import { formatCost } from '../render.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

function parseLimit(value: string): number | null {
  if (value === 'none') return null;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0)
    throw new InvalidInputError(`the limit is a number of USD (0 or more), or none; not ${value}`);
  return parsed;
}

export function registerBudgetCommands(program: Command, context: CliContext): void {
  const budgets = program
    .command('budgets')
    .description('spending limits per session, role and organization');

  addRuntimeOptions(
    budgets
      .command('set')
      .description('set a limit (none removes it); raising one lets waiting inputs go on')
      .argument('<scope>', budgetScopes.join(' | '))
      .argument('<target>', 'a session id, <organization>/<role>, or an organization')
      .argument('<usd>', 'the limit in USD, or none'),
  ).action(async (scope: string, target: string, usd: string, flags: DataDirFlags) => {
    const limitUsd = parseLimit(usd);
    await withRuntime(flags, context, async (runtime) => {
      // The runtime checks the scope against its list: a wrong one is `invalid_input`.
      const budget = await runtime.budgets.set({
        scope: scope as BudgetScope,
        target,
        limitUsd,
        ...actorOf(flags),
      });
      if (flags.json) return printJson(context, budget);
      printLine(
        context,
        budget
          ? `${budget.scope} ${budget.target}: ${formatCost(budget.spentUsd)} spent of ${formatCost(budget.limitUsd)}${budget.exceeded ? ' (reached)' : ''}`
          : `${scope} ${target}: no limit`,
      );
    });
  });

  addRuntimeOptions(budgets.command('list').description('limits with what has been spent')).action(
    async (flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.budgets.list();
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no limits');
        for (const budget of list)
          printLine(
            context,
            `${budget.scope} ${budget.target} ${formatCost(budget.spentUsd)} of ${formatCost(budget.limitUsd)}${budget.exceeded ? ' reached' : ''}`,
          );
      });
    },
  );

  addRuntimeOptions(
    budgets.command('spend').description('what each organization and role has spent (sessions: agentd show)'),
  ).action(async (flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const report = await runtime.budgets.report();
      if (flags.json) return printJson(context, report);
      const limit = (usd: number | null) => (usd === null ? '' : ` of ${formatCost(usd)}`);
      for (const each of report.organizations)
        printLine(
          context,
          `organization ${each.organization} ${formatCost(each.spentUsd)}${limit(each.limitUsd)}`,
        );
      for (const each of report.roles)
        printLine(
          context,
          `role ${each.organization}/${each.role} ${formatCost(each.spentUsd)}${limit(each.limitUsd)}`,
        );
    });
  });
}
