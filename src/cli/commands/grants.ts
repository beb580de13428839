import type { Command } from 'commander';
import type { GrantAction } from '../../store/org-storage.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

export function registerGrantCommands(program: Command, context: CliContext): void {
  const grants = program.command('grants').description('what principals may do');

  addRuntimeOptions(
    grants
      .command('add')
      .description('allow a principal an action on a resource')
      .argument('<principal>', 'principal name')
      .argument('<action>', 'agent.trigger | role.trigger | admin')
      .argument('<resource>', 'project:<org>/<project>, role:<org>/<role> (either may end in /*), or *'),
  ).action(async (principal: string, action: string, resource: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      // The runtime checks the action against its list: a wrong one is `invalid_input`.
      const grant = await runtime.grants.add({
        principal,
        action: action as GrantAction,
        resource,
        ...actorOf(flags),
      });
      if (flags.json) return printJson(context, grant);
      printLine(context, grant.id);
    });
  });

  addRuntimeOptions(grants.command('list').description('grants'))
    .option('--principal <name>', "only this principal's")
    .action(async (flags: DataDirFlags & { principal?: string }) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.grants.list(flags.principal ? { principal: flags.principal } : {});
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no grants');
        for (const grant of list)
          printLine(context, `${grant.id} ${grant.principal} ${grant.action} ${grant.resource}`);
      });
    });

  addRuntimeOptions(
    grants.command('remove').description('remove a grant').argument('<id>', 'grant id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      await runtime.grants.remove(id, actorOf(flags));
      if (flags.json) return printJson(context, { removed: id });
      printLine(context, `removed grant ${id}`);
    });
  });
}
