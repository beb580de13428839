import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { exitCodes } from '../exit-codes.js';
import { type AgentFlags, addAgentOptions, configFromFlags } from '../options.js';
import { addRuntimeOptions, type DataDirFlags, printJson, withRuntime } from '../runtime-context.js';

interface StartFlags extends AgentFlags, DataDirFlags {
  messageId?: string;
  launchId?: string;
  offline?: boolean;
}

function line(context: CliContext, text: string) {
  context.stdout.write(`${text}\n`);
}

export function registerSessionCommands(program: Command, context: CliContext): void {
  addRuntimeOptions(
    addAgentOptions(
      program
        .command('start')
        .description('start a session with a detached worker; prints the session id')
        .argument('<prompt>', 'the first message'),
    ),
  )
    .option('--message-id <id>', "the first message's id (idempotent)")
    .option('--launch-id <id>', 'makes the start idempotent: the same launch id returns the same session')
    .option('--offline', 'answer with the built-in demo model: no credentials, no network')
    .action(async (prompt: string, flags: StartFlags) => {
      const config = configFromFlags(flags, context.env);
      await withRuntime(flags, context, async (runtime) => {
        const result = await runtime.createSession({
          prompt,
          config,
          ...(flags.offline ? { offline: true } : {}),
          ...(flags.messageId ? { messageId: flags.messageId } : {}),
          ...(flags.launchId ? { launchId: flags.launchId } : {}),
        });
        if (flags.json) printJson(context, result);
        else line(context, result.session.id);
      });
    });

  addRuntimeOptions(
    program
      .command('send')
      .description('send a message to a session (starts a worker if none is running)')
      .argument('<session>', 'session id')
      .argument('<text>', 'the message'),
  )
    .option('--message-id <id>', 'your id for the message; resending the same id and text is harmless')
    .action(async (sessionId: string, text: string, flags: DataDirFlags & { messageId?: string }) => {
      await withRuntime(flags, context, async (runtime) => {
        const input = await runtime.send(sessionId, {
          text,
          ...(flags.messageId ? { messageId: flags.messageId } : {}),
        });
        if (flags.json) printJson(context, input);
        else line(context, `${input.messageId} ${input.state}`);
      });
    });

  addRuntimeOptions(
    program
      .command('show')
      .description('a session, its executions and inputs')
      .argument('<session>', 'session id'),
  ).action(async (sessionId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const details = await runtime.getSession(sessionId);
      if (flags.json) return printJson(context, details);
      const { session } = details;
      line(context, `session   ${session.id} (${session.state})`);
      line(context, `claude    ${session.nativeSessionId ?? '-'}`);
      line(context, `cwd       ${session.cwd}`);
      line(context, `model     ${session.model ?? '(default)'}`);
      line(
        context,
        `worker    ${details.live ? `${details.live.id} ${details.live.state} pid ${details.live.pid}` : 'none'}`,
      );
      line(context, `events    ${details.lastCursor}`);
      line(context, 'executions');
      for (const execution of details.executions) {
        line(
          context,
          `  ${execution.id} ${execution.state}${execution.error ? ` (${String(execution.error.code)}: ${String(execution.error.message)})` : ''}`,
        );
      }
      line(context, 'inputs');
      for (const input of details.inputs)
        line(context, `  ${input.messageId} ${input.state} ${JSON.stringify(input.text.slice(0, 60))}`);
    });
  });

  addRuntimeOptions(program.command('sessions').description('list sessions')).action(
    async (flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const sessions = await runtime.listSessions();
        if (flags.json) return printJson(context, sessions);
        for (const session of sessions) {
          line(
            context,
            `${session.id} ${session.state} ${new Date(session.createdAt).toISOString()} ${session.cwd}`,
          );
        }
      });
    },
  );

  addRuntimeOptions(
    program.command('stop').description("stop a session's worker").argument('<session>', 'session id'),
  ).action(async (sessionId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const execution = await runtime.stop(sessionId);
      if (flags.json) return printJson(context, { stopping: execution });
      line(context, execution ? `stopping ${execution.id}` : 'no live worker');
    });
  });

  addRuntimeOptions(
    program
      .command('resume')
      .description('start a new worker on a stopped or failed session')
      .argument('<session>', 'session id'),
  ).action(async (sessionId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const execution = await runtime.resume(sessionId);
      if (flags.json) return printJson(context, execution);
      line(context, `started ${execution.id}`);
    });
  });

  addRuntimeOptions(
    program
      .command('attach')
      .description('open the session in interactive claude (only once its worker has stopped)')
      .argument('<session>', 'session id'),
  )
    .option('--print', 'print the command instead of running it')
    .action(async (sessionId: string, flags: DataDirFlags & { print?: boolean }) => {
      const command = await withRuntime(flags, context, (runtime) => runtime.attach(sessionId));
      if (flags.json) return printJson(context, command);
      if (flags.print || !process.stdin.isTTY) {
        line(context, `cd ${JSON.stringify(command.cwd)} && ${command.command} ${command.args.join(' ')}`);
        return;
      }
      const result = spawnSync(command.command, command.args, { cwd: command.cwd, stdio: 'inherit' });
      context.exitCode = result.status ?? exitCodes.failure;
    });
}
