import type { Command } from 'commander';
import type { AgentBackend, PermissionHandler } from '../../backends/agent-backend.js';
import { backendOf } from '../../backends/session-spec.js';
import { eventOf, type JournalRecord } from '../../journal/journal-event.js';
import type { PreparedRun } from '../../runtime/prepared-run.js';
import type { CliContext } from '../context.js';
import { exitCodes } from '../exit-codes.js';
import { type AgentFlags, addAgentOptions, configFromFlags } from '../options.js';
import { HumanRenderer } from '../render.js';
import { addRuntimeOptions, type DataDirFlags, withRuntime } from '../runtime-context.js';

interface RunFlags extends AgentFlags, DataDirFlags {
  offline?: boolean;
}

/** With nobody at the keyboard to ask, a tool the settings leave open is denied, with the way out. */
const denyUnlisted: PermissionHandler = async (request) => ({
  behavior: 'deny',
  message: `agentd run cannot ask for approval of ${request.toolName}; allow it with --allowed-tools ${request.toolName} or a --permission-mode`,
});

/** The backend with `agentd run`'s permission rule in place of the worker's persisted approvals. */
function foregroundBackend(backend: AgentBackend): AgentBackend {
  return {
    name: backend.name,
    ...(backend.transcripts ? { transcripts: backend.transcripts } : {}),
    startSession: (options) => backend.startSession({ ...options, canUseTool: denyUnlisted }),
    ...(backend.prepare ? { prepare: (options) => backend.prepare?.(options) } : {}),
    ...(backend.discardPrepared ? { discardPrepared: () => backend.discardPrepared?.() } : {}),
  };
}

export function registerRun(program: Command, context: CliContext): void {
  addRuntimeOptions(
    addAgentOptions(
      program
        .command('run')
        .description(
          'run one prompt in the foreground, streaming what the agent does; journaled like any session',
        )
        .argument('<prompt>', 'what to ask the agent'),
    ),
  )
    .option(
      '--resume <session>',
      'continue an agentd session (the id `agentd run` and `agentd sessions` print)',
    )
    .option('--offline', 'answer with the built-in demo model: no credentials, no network')
    .action(async (prompt: string, flags: RunFlags) => {
      context.exitCode = await run(prompt, flags, context);
    });
}

/** The exit code a turn's last event earns. */
function outcomeOf(record: JournalRecord): number | null {
  if (record.type === 'agent.turn.completed')
    return record.data.isError ? exitCodes.failure : exitCodes.success;
  if (record.type === 'agent.error') {
    const { code } = record.data.error;
    return code === 'authentication' || code === 'permission' ? exitCodes.credentials : exitCodes.failure;
  }
  return null;
}

/** What a person sees of a run: the agent's events; the journal's own records are for `--json`. */
function renderRecord(record: JournalRecord, renderer: HumanRenderer): void {
  switch (record.type) {
    case 'input.accepted':
    case 'input.delivered':
    case 'interaction.requested':
    case 'interaction.answered':
    case 'execution.started':
    case 'execution.stopped':
    case 'execution.failed':
    case 'work.settled':
    case 'control.interrupt':
    case 'session.archived':
    case 'budget.exceeded':
    case 'peer.sent':
    case 'seed.started':
    case 'seed.iteration':
    case 'seed.criterion':
    case 'seed.check':
    case 'seed.finished':
      return;
    default:
      renderer.render(eventOf(record));
  }
}

/**
 * One session through the runtime (journaled, listed by `agentd sessions`), its execution run in
 * this process so that no worker process has to start first, stopped once its turn has settled.
 */
async function run(prompt: string, flags: RunFlags, context: CliContext): Promise<number> {
  const { resume, backend: backendName, ...agentFlags } = flags;
  const config = configFromFlags(agentFlags, context.env);
  config.includePartialMessages = config.includePartialMessages ?? !flags.json;
  let backend: AgentBackend | undefined;
  let prepared: PreparedRun | undefined;
  if (!resume && (backendName ?? 'claude') === 'claude') {
    // Loaded when run: other commands do not pay for the SDK. It loads first, since `claude` can only
    // start once it has; a new session's `claude` then boots while the runtime opens and journals the input.
    const { loadSdk } = await import('../../backends/claude/load-sdk.js');
    await loadSdk();
    const [{ ClaudeBackend }, { prepareRun }] = await Promise.all([
      import('../../backends/claude/claude-backend.js'),
      import('../../runtime/prepared-run.js'),
    ]);
    backend = foregroundBackend(new ClaudeBackend());
    prepared = await prepareRun({
      backend,
      env: context.env,
      launch: { config, ...(flags.offline ? { offline: true } : {}) },
    });
  }
  // The worker's modules load while the store opens, rather than after it.
  void import('../../worker/run-execution.js').catch(() => undefined);
  return withRuntime(flags, context, async (runtime) => {
    const sessionId =
      resume ??
      (
        await runtime
          .createSession({
            config,
            ...(backendName ? { backend: backendName } : {}),
            requireCredentials: true,
            ...(flags.offline ? { offline: true } : {}),
          })
          .catch(async (error: unknown) => {
            await prepared?.discard();
            throw error;
          })
      ).session.id;
    // A resumed session runs on the backend it was made with; a new one on the flag's.
    if (!backend) {
      const { createBackend } = await import('../../backends/create-backend.js');
      const name = resume
        ? backendOf((await runtime.getSession(resume)).session.config)
        : (backendName ?? 'claude');
      backend = foregroundBackend(createBackend(name));
    }
    const renderer = new HumanRenderer(context.stdout, context.stderr, sessionId);
    let exitCode: number = exitCodes.failure;
    let final = false;
    let stopping: Promise<unknown> | undefined;
    const stop = () => {
      stopping ??= runtime.stop(sessionId);
    };
    // An interrupt applies to a turn under way: one asked for earlier waits for the turn to start.
    let turnStarted = false;
    let interruptWanted = false;
    const interrupt = () => {
      interruptWanted = true;
      if (turnStarted) void runtime.interrupt(sessionId);
    };
    const here = await runtime.runHere(sessionId, {
      text: prompt,
      backend,
      ...(prepared ? { prepared } : {}),
      onRecord: (record) => {
        if (record.type === 'input.delivered' && !turnStarted) {
          turnStarted = true;
          if (interruptWanted) void runtime.interrupt(sessionId);
        }
        if (flags.json) context.stdout.write(`${JSON.stringify(record)}\n`);
        else renderRecord(record, renderer);
        const outcome = outcomeOf(record);
        if (outcome !== null) {
          exitCode = outcome;
          // A failed attempt that agentd retries is not the end of the turn; its final event is.
          final = record.type === 'agent.error' || outcome === exitCodes.success;
        }
        if (record.type === 'work.settled' && final) stop();
      },
    });

    let interrupted = false;
    const onSigint = () => {
      if (interrupted) process.exit(exitCodes.interrupted);
      interrupted = true;
      context.stderr.write('\ninterrupting…\n');
      interrupt();
    };
    // Nobody reads any more (`| head`): end the turn and leave quietly.
    const onOutputClosed = () => interrupt();
    process.on('SIGINT', onSigint);
    context.outputClosed.addEventListener('abort', onOutputClosed);
    try {
      await here.done;
      await stopping;
    } finally {
      process.off('SIGINT', onSigint);
      context.outputClosed.removeEventListener('abort', onOutputClosed);
    }
    if (context.outputClosed.aborted) return exitCodes.success;
    return interrupted ? exitCodes.interrupted : exitCode;
  });
}
