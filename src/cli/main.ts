import { Command, CommanderError } from 'commander';
import { AgentdError } from '../errors/index.js';
import { version } from '../version.js';
import { registerApprovalCommands } from './commands/approvals.js';
import { registerEvents } from './commands/events.js';
import { registerRun } from './commands/run.js';
import { registerServe } from './commands/serve.js';
import { registerSessionCommands } from './commands/sessions.js';
import type { CliContext } from './context.js';
import { exitCodes } from './exit-codes.js';

export function buildProgram(context: CliContext): Command {
  const program = new Command('agentd')
    .description('A durable runtime and server for Claude agents')
    .version(version)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    });
  registerRun(program, context);
  registerSessionCommands(program, context);
  registerEvents(program, context);
  registerApprovalCommands(program, context);
  registerServe(program, context);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  const context: CliContext = {
    env: process.env,
    stdout: { write: (text) => process.stdout.write(text) },
    stderr: { write: (text) => process.stderr.write(text) },
    exitCode: exitCodes.success,
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
      if (error.code === 'credentials_missing') return exitCodes.credentials;
      return error.userError ? exitCodes.usage : exitCodes.failure;
    }
    throw error;
  }
}
