import type { Command } from 'commander';
import type { ScheduleFiringRecord, ScheduleRecord } from '../../store/schedule-storage.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface AddFlags extends DataDirFlags {
  cron: string;
  tz?: string;
  role?: string;
  channel?: string;
  org?: string;
  cwd?: string;
  missed?: 'skip' | 'run_once';
  id?: string;
}

function when(at: number | null): string {
  return at === null ? 'never' : new Date(at).toISOString();
}

function scheduleLine(schedule: ScheduleRecord): string {
  const target =
    schedule.target.kind === 'role' ? `role ${schedule.target.role}` : `channel ${schedule.target.channel}`;
  return `${schedule.id}  ${schedule.state}  "${schedule.cron}" ${schedule.timezone}  ${target}  next ${when(schedule.nextAt)}  missed: ${schedule.missed}`;
}

function firingLine(firing: ScheduleFiringRecord): string {
  const outcome = firing.sessionId ? `session ${firing.sessionId}` : (firing.error ?? '');
  const missed = firing.missed > 0 ? ` (${firing.missed} missed before)` : '';
  return `  ${when(firing.occurrence)}  ${firing.state}${missed}  ${outcome}`;
}

export function registerScheduleCommands(program: Command, context: CliContext): void {
  const schedule = program
    .command('schedule')
    .alias('schedules')
    .description('cron schedules that start a session of a role or send to a channel (docs/run-control.md)');

  addRuntimeOptions(
    schedule.command('add').description('add a schedule').argument('<prompt>', 'what each occurrence sends'),
  )
    .requiredOption('--cron <expression>', 'five fields: minute hour day-of-month month day-of-week')
    .option('--tz <zone>', 'IANA time zone the expression is read in (default: UTC)')
    .option('--role <role>', 'start a new session of this role at each occurrence')
    .option('--channel <key>', "send to this channel's session at each occurrence")
    .option('--org <organization>', 'organization (default: default)')
    .option('--cwd <dir>', "the sessions' working directory (default: the server's)")
    .option('--missed <policy>', 'occurrences missed while down: skip (default) or run_once')
    .option('--id <id>', 'the schedule id (default: a new UUID)')
    .action(async (prompt: string, flags: AddFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const added = await runtime.schedules.add({
          cron: flags.cron,
          prompt,
          ...(flags.tz ? { timezone: flags.tz } : {}),
          ...(flags.role ? { role: flags.role } : {}),
          ...(flags.channel ? { channel: flags.channel } : {}),
          ...(flags.org ? { organization: flags.org } : {}),
          ...(flags.cwd ? { cwd: flags.cwd } : {}),
          ...(flags.missed ? { missed: flags.missed } : {}),
          ...(flags.id ? { id: flags.id } : {}),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, { schedule: added });
        printLine(context, `added ${scheduleLine(added)}`);
      });
    });

  addRuntimeOptions(schedule.command('list').description('schedules'))
    .option('--org <organization>', 'only this organization')
    .action(async (flags: DataDirFlags & { org?: string }) => {
      await withRuntime(flags, context, async (runtime) => {
        const schedules = await runtime.schedules.list(flags.org ? { organization: flags.org } : {});
        if (flags.json) return printJson(context, { schedules });
        if (schedules.length === 0) printLine(context, 'no schedules');
        for (const each of schedules) printLine(context, scheduleLine(each));
      });
    });

  addRuntimeOptions(
    schedule.command('show').description('a schedule and its latest firings').argument('<id>', 'schedule id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const details = await runtime.schedules.get(id);
      if (flags.json) return printJson(context, details);
      printLine(context, scheduleLine(details.schedule));
      printLine(context, `prompt: ${details.schedule.prompt}`);
      if (details.firings.length === 0) printLine(context, 'no firings yet');
      for (const firing of details.firings) printLine(context, firingLine(firing));
    });
  });

  for (const [name, description] of [
    ['pause', 'pause: no occurrence fires, none counts as missed'],
    ['resume', 'resume from the next occurrence'],
  ] as const) {
    addRuntimeOptions(schedule.command(name).description(description).argument('<id>', 'schedule id')).action(
      async (id: string, flags: DataDirFlags) => {
        await withRuntime(flags, context, async (runtime) => {
          const changed = await runtime.schedules[name](id, actorOf(flags));
          if (flags.json) return printJson(context, { schedule: changed });
          printLine(context, scheduleLine(changed));
        });
      },
    );
  }

  addRuntimeOptions(
    schedule
      .command('remove')
      .description('remove a schedule and its firings')
      .argument('<id>', 'schedule id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      await runtime.schedules.remove(id, actorOf(flags));
      if (flags.json) return printJson(context, { removed: id });
      printLine(context, `removed schedule ${id}`);
    });
  });
}
