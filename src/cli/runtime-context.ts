import type { Command } from 'commander';
import type { Runtime } from '../runtime/runtime.js';
import type { CliContext } from './context.js';

export interface DataDirFlags {
  dataDir?: string;
  /** `postgres://...` or `sqlite:PATH`, instead of the data directory's SQLite file. */
  store?: string;
  json?: boolean;
  /** The principal to act as. */
  as?: string;
}

/** The help of `--store`, which every command that opens the store takes. */
export const storeOptionHelp =
  "the store: postgres://USER@HOST/DB (several nodes on one database) or sqlite:PATH (default: $AGENTD_STORE_URL, else the data directory's agentd.db)";

/** Adds `--data-dir`, `--store`, `--json` and `--as`, which every runtime command takes. */
export function addRuntimeOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data directory (default: $AGENTD_DATA_DIR or ~/.local/state/agentd)')
    .option('--store <url>', storeOptionHelp)
    .option('--json', 'print JSON')
    .option('--as <principal>', 'act as this principal, with only its grants (default: owner)');
}

/** The `actor` the runtime checks: `--as`, else the runtime's default (the owner). */
export function actorOf(flags: DataDirFlags): { actor?: string } {
  return flags.as ? { actor: flags.as } : {};
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
    ...(flags.store ? { storeUrl: flags.store } : {}),
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

export function printLine(context: CliContext, text: string): void {
  context.stdout.write(`${text}\n`);
}
