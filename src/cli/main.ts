import { Command, CommanderError } from 'commander';
import { AgentdError } from '../errors/index.js';
import { version } from '../version.js';
import { registerApprovalCommands } from './commands/approvals.js';
import { registerBudgetCommands } from './commands/budgets.js';
import { registerChannelCommands } from './commands/channels.js';
import { registerEvents } from './commands/events.js';
import { registerGoalCommand } from './commands/goal.js';
import { registerGrantCommands } from './commands/grants.js';
import { registerMonitorCommands } from './commands/monitors.js';
import { registerPeerCommands } from './commands/peers.js';
import { registerPrincipalCommands } from './commands/principals.js';
import { registerProviderCommands } from './commands/providers.js';
import { registerRoleCommands } from './commands/roles.js';
import { registerRun } from './commands/run.js';
import { registerScheduleCommands } from './commands/schedules.js';
import { registerSeedCommands } from './commands/seeds.js';
import { registerServe } from './commands/serve.js';
import { registerSessionCommands } from './commands/sessions.js';
import { registerSkillCommands } from './commands/skills.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import type { CliContext } from './context.js';
import { exitCodeOf, exitCodes, exitCodesHelp } from './exit-codes.js';
import type { Output } from './render.js';

export function buildProgram(context: CliContext): Command {
  const program = new Command('agentd')
    .description('A durable runtime and server for Claude agents')
    .version(version)
    // `-V/--version` only before a command: `agentd roles show NAME --version 2` is the command's own.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    })
    .addHelpText('after', exitCodesHelp);
  registerRun(program, context);
  registerSessionCommands(program, context);
  registerEvents(program, context);
  registerApprovalCommands(program, context);
  registerServe(program, context);
  registerProviderCommands(program, context);
  registerRoleCommands(program, context);
  registerSkillCommands(program, context);
  registerChannelCommands(program, context);
  registerGrantCommands(program, context);
  registerPrincipalCommands(program, context);
  registerBudgetCommands(program, context);
  registerPeerCommands(program, context);
  registerMonitorCommands(program, context);
  registerGoalCommand(program, context);
  registerSeedCommands(program, context);
  registerScheduleCommands(program, context);
  registerWebhookCommands(program, context);
  overrideExits(program);
  return program;
}

/** Every command, nested ones too, reports a usage error by throwing instead of exiting. */
function overrideExits(command: Command): void {
  for (const child of command.commands) {
    child.exitOverride();
    overrideExits(child);
  }
}

/**
 * Output to a stream whose reader may go away (`agentd run … --json | head`): from the first write
 * error (EPIPE) on, writes are dropped and `closed` aborts, instead of an unhandled error event.
 */
function streamOutput(stream: NodeJS.WriteStream, closed?: AbortController): Output {
  let broken = false;
  stream.on('error', () => {
    broken = true;
    closed?.abort();
  });
  return {
    write: (text) => {
      if (!broken) stream.write(text);
    },
  };
}

/** Runs the CLI and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  const outputClosed = new AbortController();
  const context: CliContext = {
    env: process.env,
    stdout: streamOutput(process.stdout, outputClosed),
    stderr: streamOutput(process.stderr),
    exitCode: exitCodes.success,
    outputClosed: outputClosed.signal,
  };
  const program = buildProgram(context);
  try {
    await program.parseAsync(argv);
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? exitCodes.success : exitCodes.usage;
    }
    if (error instanceof AgentdError) {
      context.stderr.write(`agentd: ${error.message} (${error.code})\n`);
      return exitCodeOf(error.code);
    }
    throw error;
  }
}
