import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface GoalFlags extends DataDirFlags {
  messageId?: string;
}

export function registerGoalCommand(program: Command, context: CliContext): void {
  addRuntimeOptions(
    program
      .command('goal')
      .description(
        "set claude's own goal (/goal): it keeps working until the condition holds; `clear` ends it; `agentd show` gives the current goal",
      )
      .argument('<session>', 'session id')
      .argument('<objective>', 'the condition, or clear')
      .option('--message-id <id>', 'your id for the command; resending it is harmless'),
  ).action(async (sessionId: string, objective: string, flags: GoalFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const input = await runtime.goal(sessionId, {
        objective,
        ...(flags.messageId ? { messageId: flags.messageId } : {}),
        ...actorOf(flags),
      });
      if (flags.json) return printJson(context, input);
      printLine(context, `${input.messageId} ${input.state} (/goal)`);
    });
  });
}
