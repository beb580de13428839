import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { PermissionHandler } from '../../backends/agent-backend.js';
import { ClaudeBackend } from '../../backends/claude/claude-backend.js';
import { requireCredentials } from '../../config/credentials.js';
import { AsyncQueue } from '../../util/async-queue.js';
import type { CliContext } from '../context.js';
import { exitCodes } from '../exit-codes.js';
import { type AgentFlags, addAgentOptions, configFromFlags } from '../options.js';
import { HumanRenderer } from '../render.js';

interface RunFlags extends AgentFlags {
  json?: boolean;
}

/** With nobody at the keyboard to ask, a tool the settings leave open is denied, with the way out. */
const denyUnlisted: PermissionHandler = async (request) => ({
  behavior: 'deny',
  message: `agentd run cannot ask for approval of ${request.toolName}; allow it with --allowed-tools ${request.toolName} or a --permission-mode`,
});

export function registerRun(program: Command, context: CliContext): void {
  addAgentOptions(
    program
      .command('run')
      .description('run one prompt in the foreground, streaming what the agent does')
      .argument('<prompt>', 'what to ask the agent'),
  )
    .option('--resume <session-id>', 'continue a Claude session by its id')
    .option('--json', 'print one event per line as JSON')
    .action(async (prompt: string, flags: RunFlags) => {
      context.exitCode = await run(prompt, flags, context);
    });
}

async function run(prompt: string, flags: RunFlags, context: CliContext): Promise<number> {
  const config = configFromFlags(flags, context.env);
  requireCredentials(context.env);
  config.includePartialMessages = config.includePartialMessages ?? !flags.json;
  const inputs = new AsyncQueue<{ id: string; text: string }>();
  inputs.push({ id: randomUUID(), text: prompt });
  const session = new ClaudeBackend().startSession({ config, inputs, canUseTool: denyUnlisted });

  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(exitCodes.interrupted);
    interrupted = true;
    context.stderr.write('\ninterrupting…\n');
    void session.interrupt();
  };
  process.on('SIGINT', onSigint);

  const renderer = new HumanRenderer(context.stdout, context.stderr);
  let exitCode: number = exitCodes.failure;
  try {
    for await (const event of session) {
      if (flags.json) context.stdout.write(`${JSON.stringify(event)}\n`);
      else renderer.render(event);
      if (event.type === 'agent.turn.completed' && !event.isError) {
        exitCode = exitCodes.success;
        inputs.end();
      }
      if (event.type === 'agent.error') {
        exitCode =
          event.error.code === 'authentication' || event.error.code === 'permission'
            ? exitCodes.credentials
            : exitCodes.failure;
        inputs.end();
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
    await session.close();
  }
  return interrupted ? exitCodes.interrupted : exitCode;
}
