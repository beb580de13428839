import type { Command } from 'commander';
import type { AgentEvent } from '../../backends/agent-event.js';
import type { EventRecord } from '../../store/store.js';
import type { CliContext } from '../context.js';
import { parseNonNegativeNumber } from '../options.js';
import { HumanRenderer } from '../render.js';
import { addRuntimeOptions, type DataDirFlags, withRuntime } from '../runtime-context.js';

interface EventsFlags extends DataDirFlags {
  after?: number;
  follow?: boolean;
}

/** A journal line as a person reads it: agent events through the renderer, the rest in one line. */
function renderRecord(record: EventRecord, renderer: HumanRenderer, context: CliContext) {
  const data = record.data as Record<string, unknown>;
  switch (record.type) {
    case 'input.accepted':
      context.stdout.write(`[${record.cursor}] you: ${String(data.text)}\n`);
      return;
    case 'interaction.requested': {
      const interaction = data.interaction as { id: string; toolName: string; kind: string };
      context.stdout.write(
        `[${record.cursor}] waiting for ${interaction.kind}: ${interaction.toolName} (agentd approve ${interaction.id})\n`,
      );
      return;
    }
    case 'interaction.answered':
    case 'execution.started':
    case 'execution.stopped':
    case 'execution.failed':
    case 'work.settled':
      context.stdout.write(
        `[${record.cursor}] ${record.type}${data.reason ? ` (${String(data.reason)})` : ''}\n`,
      );
      return;
    default:
      renderer.render({ type: record.type, ...data } as AgentEvent);
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
