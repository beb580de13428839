import type { Command } from 'commander';
import type { Runtime } from '../runtime/runtime.js';
import type { CliContext } from './context.js';

export interface DataDirFlags {
  dataDir?: string;
  json?: boolean;
}

/** Adds `--data-dir` and `--json`, which every runtime command takes. */
export function addRuntimeOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data directory (default: $AGENTD_DATA_DIR or ~/.local/state/agentd)')
    .option('--json', 'print JSON');
}

/** Opens the runtime for one command and closes it afterwards. */
export async function withRuntime<T>(
  flags: DataDirFlags,
  context: CliContext,
  action: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  // Loaded when a command runs, so that `agentd run` does not pay for the store and the supervisor.
  const { createRuntime } = await import('../runtime/runtime.js');
  const runtime = await createRuntime({
    ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
    env: context.env,
  });
  try {
    return await action(runtime);
  } finally {
    await runtime.close();
  }
}

export function printJson(context: CliContext, value: unknown): void {
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
