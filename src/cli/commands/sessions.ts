import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { backendOf } from '../../backends/session-spec.js';
import { InvalidInputError } from '../../errors/index.js';
import { ifBusyStrategies, parseIfBusy } from '../../runtime/double-texting.js';
import type { CliContext } from '../context.js';
import { exitCodes } from '../exit-codes.js';
import { printMessageResult } from '../message-output.js';
import { type AgentFlags, addAgentOptions, configFromFlags } from '../options.js';
import { actorOf, addRuntimeOptions, type DataDirFlags, printJson, withRuntime } from '../runtime-context.js';

interface StartFlags extends AgentFlags, DataDirFlags {
  messageId?: string;
  launchId?: string;
  offline?: boolean;
  role?: string;
  org?: string;
  acceptPeers?: boolean;
  ifBusy?: string;
}

interface SendFlags extends DataDirFlags {
  messageId?: string;
  channel?: string;
  role?: string;
  org?: string;
  project?: string;
  ifBusy?: string;
}

const ifBusyHelp = `if the session is mid-turn: ${ifBusyStrategies.join(', ')}`;

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
    .option('--role <name>', "run under this role (default: the organization's default role)")
    .option('--org <organization>', 'organization of the role (default: default)')
    .option('--accept-peers', 'take messages from other sessions (agentd peer send)')
    .option(
      '--if-busy <strategy>',
      `the session's default for messages sent mid-turn (${ifBusyStrategies.join(', ')})`,
    )
    .action(async (prompt: string, flags: StartFlags) => {
      const ifBusy = parseIfBusy(flags.ifBusy, '--if-busy');
      const config = configFromFlags(flags, context.env);
      await withRuntime(flags, context, async (runtime) => {
        const result = await runtime.createSession({
          prompt,
          config,
          ...(flags.backend ? { backend: flags.backend } : {}),
          ...(flags.role ? { role: flags.role } : {}),
          ...(flags.org ? { organization: flags.org } : {}),
          ...actorOf(flags),
          ...(flags.offline ? { offline: true } : {}),
          ...(flags.messageId ? { messageId: flags.messageId } : {}),
          ...(flags.launchId ? { launchId: flags.launchId } : {}),
          ...(flags.acceptPeers ? { acceptPeers: true } : {}),
          ...(ifBusy ? { ifBusy } : {}),
        });
        if (flags.json) printJson(context, result);
        else line(context, result.session.id);
      });
    });

  addRuntimeOptions(
    program
      .command('send')
      .description(
        'send a message to a session, or with --channel to a channel (starts a worker if none is running); /status, /help, /stop, /new and /compact are commands',
      )
      .usage('[options] <session> <text>\n       agentd send --channel <key> [options] <text>')
      .argument('<session-or-text>', 'session id (with --channel: the message)')
      .argument('[text]', 'the message'),
  )
    .option('--message-id <id>', 'your id for the message; resending the same id and text is harmless')
    .option('--channel <key>', "send to the channel's session for its selected role")
    .option('--role <name>', 'with --channel: select this role first')
    .option('--org <organization>', 'with --channel: where a new channel is bound (default: default)')
    .option('--project <project>', 'with --channel: where a new channel is bound (default: default)')
    .option('--if-busy <strategy>', `${ifBusyHelp} (default: the session's, else enqueue)`)
    .action(async (first: string, second: string | undefined, flags: SendFlags) => {
      const ifBusy = parseIfBusy(flags.ifBusy, '--if-busy');
      const target =
        flags.channel !== undefined
          ? { channel: flags.channel, text: first }
          : { session: first, text: second };
      if (second !== undefined && flags.channel !== undefined)
        throw new InvalidInputError('with --channel, give only the text: agentd send --channel KEY TEXT');
      if (target.text === undefined)
        throw new InvalidInputError('missing the text: agentd send SESSION TEXT');
      if (flags.channel === undefined && (flags.role || flags.org || flags.project))
        throw new InvalidInputError('--role, --org and --project go with --channel');
      const text = target.text;
      await withRuntime(flags, context, async (runtime) => {
        const message = {
          text,
          ...(flags.messageId ? { messageId: flags.messageId } : {}),
          ...(ifBusy ? { ifBusy } : {}),
          ...actorOf(flags),
        };
        const result =
          target.channel !== undefined
            ? await runtime.channels.message(target.channel, {
                ...message,
                ...(flags.role ? { role: flags.role } : {}),
                ...(flags.org ? { organization: flags.org } : {}),
                ...(flags.project ? { project: flags.project } : {}),
              })
            : await runtime.message(target.session!, message);
        printMessageResult(context, result, {
          ...(flags.json ? { json: true } : {}),
          ...(target.channel !== undefined ? { showSession: true } : {}),
        });
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
      const backend = backendOf(session.config);
      line(context, `session   ${session.id} (${session.state})`);
      line(context, `backend   ${backend}`);
      line(context, `${backend === 'codex' ? 'thread ' : 'claude '}   ${session.nativeSessionId ?? '-'}`);
      line(context, `cwd       ${session.cwd}`);
      line(context, `model     ${session.model ?? '(default)'}`);
      line(
        context,
        `worker    ${details.live ? `${details.live.id} ${details.live.state} pid ${details.live.pid}` : details.hibernated ? 'hibernated (the next input wakes it)' : 'none'}`,
      );
      line(context, `events    ${details.lastCursor}`);
      const { goal } = details;
      line(context, `goal      ${goal ? `${goal.state}: ${goal.condition}` : 'none'}`);
      for (const monitor of details.monitors)
        line(context, `monitor   ${monitor.id} ${monitor.state}: ${monitor.command}`);
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
