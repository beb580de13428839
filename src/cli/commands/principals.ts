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

export function registerPrincipalCommands(program: Command, context: CliContext): void {
  const principals = program.command('principals').description('who may use the HTTP API, and as whom');

  addRuntimeOptions(
    principals
      .command('token')
      .description(
        'issue a bearer token for a principal (replacing its old one); printed once, the store keeps only its digest',
      )
      .argument('<name>', 'principal name'),
  ).action(async (name: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const { principal, token } = await runtime.grants.issueToken(name, actorOf(flags));
      if (flags.json) return printJson(context, { principal: principal.id, token });
      printLine(context, token);
    });
  });
}
