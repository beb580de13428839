import type { Command } from 'commander';
import { eventOf, type JournalRecord } from '../../journal/journal-event.js';
import { monitorEventLine } from '../../monitor/monitor-lines.js';
import { seedEventLine } from '../../seeds/seed-lines.js';
import type { CliContext } from '../context.js';
import { parseNonNegativeNumber } from '../options.js';
import { HumanRenderer } from '../render.js';
import { addRuntimeOptions, type DataDirFlags, withRuntime } from '../runtime-context.js';

interface EventsFlags extends DataDirFlags {
  after?: number;
  follow?: boolean;
}

/** A journal line as a person reads it: agent events through the renderer, the rest in one line. */
function renderRecord(record: JournalRecord, renderer: HumanRenderer, context: CliContext) {
  switch (record.type) {
    case 'input.accepted':
      context.stdout.write(`[${record.cursor}] you: ${record.data.text}\n`);
      return;
    case 'interaction.requested': {
      const { interaction } = record.data;
      context.stdout.write(
        `[${record.cursor}] waiting for ${interaction.kind}: ${interaction.toolName} (agentd approve ${interaction.id})\n`,
      );
      return;
    }
    case 'execution.stopped':
      context.stdout.write(`[${record.cursor}] ${record.type} (${record.data.reason})\n`);
      return;
    case 'execution.failed':
      context.stdout.write(`[${record.cursor}] ${record.type} (${record.data.error.message})\n`);
      return;
    case 'session.archived':
      context.stdout.write(`[${record.cursor}] ${record.type} (${record.data.reason})\n`);
      return;
    case 'budget.exceeded': {
      const { scope, target, spentUsd, limitUsd } = record.data;
      context.stdout.write(
        `[${record.cursor}] ${record.type} (${scope} ${target}: $${spentUsd} of $${limitUsd})\n`,
      );
      return;
    }
    case 'peer.sent':
      context.stdout.write(`[${record.cursor}] ${record.type} (to session ${record.data.to})\n`);
      return;
    case 'schedule.fired':
      context.stdout.write(
        `[${record.cursor}] ${record.type} (schedule ${record.data.scheduleId}, occurrence ${record.data.occurrence}${record.data.late ? ', late' : ''})\n`,
      );
      return;
    case 'seed.started':
    case 'seed.iteration':
    case 'seed.criterion':
    case 'seed.check':
    case 'seed.finished':
      context.stdout.write(`[${record.cursor}] ${seedEventLine(record)}\n`);
      return;
    case 'turn.interrupted':
      context.stdout.write(
        `[${record.cursor}] turn of input ${record.data.inputId} ${record.data.rolledBack ? 'rolled back' : 'interrupted'}${record.data.byInputId ? ` by input ${record.data.byInputId}` : ''} (events ${record.data.fromCursor}-${record.data.toCursor})\n`,
      );
      return;
    case 'interaction.auto_decided':
      context.stdout.write(
        `[${record.cursor}] ${record.data.toolName} ${record.data.decision === 'approve' ? 'approved' : 'denied'} by rule ${record.data.rule.rule} (${record.data.rule.scope} ${record.data.rule.target}, rule ${record.data.rule.id})\n`,
      );
      return;
    case 'monitor.started':
    case 'monitor.observation':
    case 'monitor.stop_requested':
    case 'monitor.stopped':
      context.stdout.write(`[${record.cursor}] ${monitorEventLine(record)}\n`);
      return;
    case 'goal.set':
    case 'goal.met':
      context.stdout.write(`[${record.cursor}] ${record.type}: ${record.data.condition}\n`);
      return;
    case 'goal.evaluated':
      context.stdout.write(`[${record.cursor}] goal not met yet: ${record.data.reason}\n`);
      return;
    case 'goal.cleared':
      context.stdout.write(`[${record.cursor}] goal.cleared\n`);
      return;
    case 'interaction.answered':
    case 'execution.started':
    case 'work.settled':
    case 'control.interrupt':
      context.stdout.write(`[${record.cursor}] ${record.type}\n`);
      return;
    default:
      renderer.render(eventOf(record));
  }
}

export function registerEvents(program: Command, context: CliContext): void {
  addRuntimeOptions(
    program
      .command('events')
      .description("a session's events; --follow keeps waiting for more")
      .argument('<session>', 'session id'),
  )
    .option('--after <cursor>', 'only events after this cursor', parseNonNegativeNumber)
    .option('--follow', 'keep waiting for new events (Ctrl-C to stop)')
    .action(async (sessionId: string, flags: EventsFlags) => {
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      try {
        await withRuntime(flags, context, async (runtime) => {
          const renderer = new HumanRenderer(context.stdout, context.stderr, sessionId);
          for await (const record of runtime.events(sessionId, {
            after: flags.after ?? 0,
            follow: flags.follow ?? false,
            signal: controller.signal,
          })) {
            if (flags.json) context.stdout.write(`${JSON.stringify(record)}\n`);
            else renderRecord(record, renderer, context);
          }
        });
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
}
