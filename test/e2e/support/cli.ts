import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertIsolated } from '../isolated-env.js';

/** The installed binary, as a user runs it. `npm test` builds dist/ first. */
export const agentdBin = fileURLToPath(new URL('../../../bin/agentd.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  detached: boolean;
  /** Output so far; grows while the process runs. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when the process has exited and its output is closed. */
  done: Promise<CliResult>;
}

export interface SpawnCliOptions {
  /** An isolatedEnv: nothing of the developer's. */
  env: Record<string, string | undefined>;
  /** @default the env's private home, never the checkout */
  cwd?: string;
  /** Own process group, so a test can signal it the way a terminal does on Ctrl-C. @default false */
  detached?: boolean;
}

const running = new Set<CliProcess>();

/** Starts `node bin/agentd.js ...args`. */
export function spawnCli(args: string[], options: SpawnCliOptions): CliProcess {
  const home = assertIsolated(options.env);
  const child = spawn(process.execPath, [agentdBin, ...args], {
    cwd: options.cwd ?? home,
    env: options.env,
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const cli: CliProcess = {
    child,
    detached: options.detached ?? false,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done: new Promise((resolve) => {
      child.on('close', (code, signal) => {
        running.delete(cli);
        resolve({ code, signal, stdout, stderr });
      });
    }),
  };
  running.add(cli);
  return cli;
}

export function runCli(args: string[], options: SpawnCliOptions): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** Kills whatever a failed test left running (its own processes only). */
export function killLeftovers(): void {
  for (const cli of running) {
    const pid = cli.child.pid;
    if (pid === undefined) continue;
    try {
      // A detached child leads its own group: take claude down with it.
      process.kill(cli.detached ? -pid : pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Resolves once `predicate` holds; the test's own timeout bounds the wait. */
export async function waitFor(predicate: () => boolean, intervalMs = 20): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}

export interface JournalLine {
  sessionId: string;
  cursor: number;
  type: string;
  data: Record<string, unknown>;
  executionId: string | null;
  createdAt: number;
}

/** Every line of a `--json` run, parsed: journal records, as `agentd events --json` prints them. */
export function jsonLines(stdout: string): JournalLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as JournalLine);
}

/** The agent's events among a run's journal lines, each as the event it journals (`type` + data). */
export function agentEvents(lines: JournalLine[]): Array<Record<string, unknown> & { type: string }> {
  return lines
    .filter(
      (line) =>
        line.type.startsWith('agent.') ||
        ['session.started', 'input.delivered', 'claude.message'].includes(line.type),
    )
    .map((line) => ({ type: line.type, ...line.data }));
}
