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

interface PeerSendFlags extends DataDirFlags {
  from: string;
  to: string;
  messageId?: string;
}

export function registerPeerCommands(program: Command, context: CliContext): void {
  const peer = program.command('peer').description('messages between sessions');
  addRuntimeOptions(
    peer
      .command('send')
      .description('send a message from one session to another, which must accept peers')
      .requiredOption('--from <session>', 'the sending session')
      .requiredOption('--to <session>', 'the receiving session (started with --accept-peers)')
      .option('--message-id <id>', "the sender's id for the message; resending it is harmless")
      .argument('<text>', 'the message'),
  ).action(async (text: string, flags: PeerSendFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const input = await runtime.peers.send({
        from: flags.from,
        to: flags.to,
        text,
        ...(flags.messageId ? { messageId: flags.messageId } : {}),
        ...actorOf(flags),
      });
      if (flags.json) return printJson(context, input);
      printLine(context, `${input.id} ${input.state} in session ${input.sessionId}`);
    });
  });

  addRuntimeOptions(
    program
      .command('peers')
      .description('messages a session sent to and received from other sessions, with delivery states')
      .argument('<session>', 'session id'),
  ).action(async (sessionId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const messages = await runtime.peers.list(sessionId);
      if (flags.json) return printJson(context, messages);
      if (messages.length === 0) printLine(context, 'no peer messages');
      for (const message of messages)
        printLine(
          context,
          `${new Date(message.createdAt).toISOString()} ${message.direction === 'sent' ? 'to  ' : 'from'} ${message.peer} ${message.state ?? 'unknown'} ${message.messageId}`,
        );
    });
  });
}
