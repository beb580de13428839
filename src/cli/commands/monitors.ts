import { type Command, InvalidArgumentError } from 'commander';
import type { MonitorView } from '../../monitor/monitor-ledger.js';
import { monitorEventLine } from '../../monitor/monitor-lines.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface MonitorStartFlags extends DataDirFlags {
  deadline?: number;
  persistent?: boolean;
  wake?: boolean;
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `10m`, `1h`, `500ms`; a bare number is seconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match ? Math.round(Number(match[1]) * (units[match[2] ?? 's'] ?? 1000)) : Number.NaN;
  if (!Number.isFinite(ms) || ms <= 0)
    throw new InvalidArgumentError('expected a duration such as 90s, 10m or 1h (a bare number is seconds)');
  return ms;
}

function summary(monitor: MonitorView): string {
  const end =
    monitor.state === 'stopped'
      ? ` ${monitor.reason}${monitor.exitCode !== null ? ` (exit ${monitor.exitCode})` : monitor.signal ? ` (${monitor.signal})` : ''}`
      : '';
  const kind = monitor.persistent ? ' persistent' : '';
  return `${monitor.id} ${monitor.state}${end}${kind} ${monitor.lines} lines, ${monitor.pendingLines} pending: ${monitor.command}`;
}

export function registerMonitorCommands(program: Command, context: CliContext): void {
  const monitor = program
    .command('monitor')
    .description("detached commands whose output reaches a session's agent between turns");

  addRuntimeOptions(
    monitor
      .command('start')
      .description(
        "start a monitor in the session's working directory: agentd monitor start SESSION -- COMMAND",
      )
      .argument('<session>', 'session id')
      .argument('<command...>', 'the shell command (after --)')
      .option('--deadline <duration>', 'stop it after this long (90s, 10m, 1h); default 10m', parseDuration)
      .option('--persistent', 'no deadline; it outlives the worker and its output waits for the next one')
      .option('--wake', "its output starts the session's worker when none runs"),
  ).action(async (sessionId: string, words: string[], flags: MonitorStartFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const started = await runtime.monitors.start(sessionId, {
        command: words.join(' '),
        ...(flags.deadline !== undefined ? { deadlineMs: flags.deadline } : {}),
        ...(flags.persistent ? { persistent: true } : {}),
        ...(flags.wake ? { wake: true } : {}),
        ...actorOf(flags),
      });
      if (flags.json) return printJson(context, started);
      printLine(context, started.id);
    });
  });

  addRuntimeOptions(
    monitor
      .command('stop')
      .description('stop a monitor; waits until it has ended')
      .argument('<session>', 'session id')
      .argument('<monitor>', 'monitor id'),
  ).action(async (sessionId: string, monitorId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const stopped = await runtime.monitors.stop(sessionId, monitorId);
      if (flags.json) return printJson(context, stopped);
      printLine(context, summary(stopped));
    });
  });

  addRuntimeOptions(
    monitor.command('list').description("a session's monitors").argument('<session>', 'session id'),
  ).action(async (sessionId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const monitors = await runtime.monitors.list(sessionId);
      if (flags.json) return printJson(context, monitors);
      if (monitors.length === 0) printLine(context, 'no monitors');
      for (const each of monitors) printLine(context, summary(each));
    });
  });

  addRuntimeOptions(
    monitor
      .command('show')
      .description('one monitor')
      .argument('<session>', 'session id')
      .argument('<monitor>', 'monitor id'),
  ).action(async (sessionId: string, monitorId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const shown = await runtime.monitors.get(sessionId, monitorId);
      if (flags.json) return printJson(context, shown);
      printLine(context, summary(shown));
      printLine(context, `cwd       ${shown.cwd}`);
      printLine(context, `runner    pid ${shown.pid}, command group ${shown.commandPid}`);
      printLine(
        context,
        `deadline  ${shown.deadlineAt === null ? 'none' : new Date(shown.deadlineAt).toISOString()}`,
      );
      printLine(context, `mode      ${shown.permissionMode}${shown.wake ? ', wakes the session' : ''}`);
      printLine(context, `stderr    ${shown.stderrLog}`);
    });
  });

  addRuntimeOptions(
    monitor
      .command('events')
      .description("a monitor's records: started, its output, how it ended")
      .argument('<session>', 'session id')
      .argument('<monitor>', 'monitor id'),
  ).action(async (sessionId: string, monitorId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const records = await runtime.monitors.events(sessionId, monitorId);
      if (flags.json) return printJson(context, records);
      for (const record of records) printLine(context, `[${record.cursor}] ${monitorEventLine(record)}`);
    });
  });
}
