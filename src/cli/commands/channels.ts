import type { Command } from 'commander';
import type { ChannelDetails } from '../../runtime/channels.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface BindFlags extends DataDirFlags {
  org?: string;
  project?: string;
  role?: string;
}

function printChannel(context: CliContext, details: ChannelDetails): void {
  const { channel, role, session } = details;
  printLine(context, `channel   ${channel.key}`);
  printLine(context, `project   ${channel.organization}/${channel.project}`);
  printLine(
    context,
    `role      ${role.name} version ${role.version}${role.name === channel.role ? '' : ` (selected ${channel.role} was deleted)`}`,
  );
  printLine(context, `session   ${session ? `${session.id} (${session.state})` : 'none yet'}`);
}

export function registerChannelCommands(program: Command, context: CliContext): void {
  const channels = program
    .command('channels')
    .description('external conversation keys (chat groups, threads, A2A contexts), each selecting a role');

  addRuntimeOptions(
    channels
      .command('bind')
      .description('bind a channel to a project (needs agent.trigger there)')
      .argument('<key>', 'the channel key'),
  )
    .option('--org <organization>', 'organization (default: default)')
    .option('--project <project>', 'project (default: default)')
    .option('--role <role>', "the role it starts with (default: the organization's default)")
    .action(async (key: string, flags: BindFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const result = await runtime.channels.bind({
          key,
          ...(flags.org ? { organization: flags.org } : {}),
          ...(flags.project ? { project: flags.project } : {}),
          ...(flags.role ? { role: flags.role } : {}),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, result);
        const { channel } = result;
        printLine(
          context,
          `${result.created ? 'bound' : 'already bound'} ${channel.key} to ${channel.organization}/${channel.project}, role ${channel.role}`,
        );
      });
    });

  addRuntimeOptions(
    channels
      .command('show')
      .description('a channel, its role and its session')
      .argument('<key>', 'the channel key'),
  ).action(async (key: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const details = await runtime.channels.get(key);
      if (flags.json) return printJson(context, details);
      printChannel(context, details);
    });
  });

  addRuntimeOptions(channels.command('list').description('channels'))
    .option('--org <organization>', 'only this organization')
    .action(async (flags: BindFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.channels.list(flags.org ? { organization: flags.org } : {});
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no channels');
        for (const channel of list)
          printLine(
            context,
            `${channel.key} ${channel.organization}/${channel.project} role ${channel.role}`,
          );
      });
    });

  addRuntimeOptions(
    channels
      .command('select-role')
      .description(
        "select the role the channel's later messages go to (needs agent.trigger on its project and role.trigger on the role)",
      )
      .argument('<key>', 'the channel key')
      .argument('<role>', 'role name'),
  ).action(async (key: string, role: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const details = await runtime.channels.selectRole(key, role, actorOf(flags));
      if (flags.json) return printJson(context, details);
      printLine(context, `channel ${key} now uses role ${details.role.name}`);
    });
  });
}
