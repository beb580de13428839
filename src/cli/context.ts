import type { Output } from './render.js';

/** What a command reads and writes, so that the same code serves the binary and tests. */
export interface CliContext {
  env: Record<string, string | undefined>;
  stdout: Output;
  stderr: Output;
  exitCode: number;
  /** Aborts when stdout's reader has gone (`agentd … | head`): a command stops what it was doing. */
  outputClosed: AbortSignal;
}
