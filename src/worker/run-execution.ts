import type { JournalInputOptions } from '../journal/journal-input.js';
import type { InputRecord } from '../store/store.js';
import { Worker, type WorkerOptions, workerExitCodes } from './worker.js';

export type RunExecutionOptions = WorkerOptions;
export { workerExitCodes };

/** A running execution: its end (the worker's exit code) and a way to wake it early. */
export interface ExecutionHandle {
  /** Resolves with one of `workerExitCodes` once the execution has ended. */
  readonly exit: Promise<number>;
  /** Look at the journal now (a new input or answer), not at the next poll. */
  wake(): void;
  /** Journals an input the runtime on this host hands over (decision 0132). */
  handOff(options: JournalInputOptions & { messageId: string }): Promise<InputRecord>;
}

/**
 * Runs one execution of a session in this process: the detached worker process does (worker-main),
 * and so can a CLI that runs its execution in its own process.
 */
export function runExecution(options: RunExecutionOptions): ExecutionHandle {
  const worker = new Worker(options);
  return { exit: worker.run(), wake: () => worker.wake(), handOff: (options) => worker.handOff(options) };
}
