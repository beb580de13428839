import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionRecord, Store } from '../store/store.js';
import type { DataPaths } from './data-dir.js';
import { journalEntry } from './journal-events.js';
import { isProcessAlive, processStartTime } from './process-identity.js';

export interface SupervisorOptions {
  store: Store;
  paths: DataPaths;
  /** Environment for workers (credentials travel this way only). @default process.env */
  env?: Record<string, string | undefined>;
}

const liveStates: ExecutionRecord['state'][] = ['starting', 'running', 'idle', 'stopping'];
/**
 * The worker's entry point: beside this file once built; from the TypeScript sources (tests, tsx)
 * it is the build's, since a detached `node` cannot load `.ts` files.
 */
const workerEntry = import.meta.url.endsWith('.ts')
  ? fileURLToPath(new URL('../../dist/worker/worker-main.js', import.meta.url))
  : fileURLToPath(new URL('../worker/worker-main.js', import.meta.url));

/** A worker that has not taken its lease within this time after being spawned is considered dead. */
const startGraceMs = 30_000;

/**
 * Starts workers and notices dead ones. It never restarts a worker or replays an input on its own:
 * a dead worker's in-flight inputs become `uncertain`, its execution `failed`, and only an explicit
 * resume starts a new one.
 */
export class Supervisor {
  constructor(private readonly options: SupervisorOptions) {}

  /** Spawns a detached worker for the execution; it survives this process. */
  spawnWorker(execution: ExecutionRecord): number {
    const { paths } = this.options;
    const log = openSync(join(paths.logs, `${execution.id}.out`), 'a', 0o600);
    const child = spawn(process.execPath, [workerEntry, paths.root, execution.sessionId, execution.id], {
      detached: true,
      stdio: ['ignore', log, log],
      env: this.options.env ?? process.env,
      cwd: paths.root,
    });
    child.unref();
    if (child.pid === undefined) throw new Error('could not start a worker process');
    return child.pid;
  }

  /** Whether the execution's worker process is still running (PID and start time). */
  isAlive(execution: ExecutionRecord): boolean {
    if (execution.pid === null) return Date.now() - execution.createdAt < startGraceMs;
    return isProcessAlive(execution.pid, execution.processStartTime);
  }

  /**
   * Marks executions whose worker died as failed, their in-flight inputs uncertain, and releases
   * their lease. Returns the executions it marked.
   */
  async reconcile(sessionId?: string): Promise<ExecutionRecord[]> {
    const { store } = this.options;
    const live = sessionId
      ? (await store.listExecutions(sessionId)).filter((execution) => liveStates.includes(execution.state))
      : await store.listExecutionsByState(liveStates);
    const dead: ExecutionRecord[] = [];
    for (const execution of live) {
      if (this.isAlive(execution)) continue;
      const lease = await store.getLease(execution.sessionId);
      // On another host only the lease tells: wait until it has expired.
      if (lease && lease.owner === execution.id && lease.expiresAt > Date.now() && execution.pid === null)
        continue;
      dead.push(await this.markDead(execution));
    }
    return dead;
  }

  private async markDead(execution: ExecutionRecord): Promise<ExecutionRecord> {
    const { store } = this.options;
    const now = Date.now();
    const dispatching = await store.listInputs(execution.sessionId, { states: ['dispatching'] });
    const uncertain = await store.updateInputStates({
      sessionId: execution.sessionId,
      inputIds: dispatching.map((input) => input.id),
      from: ['dispatching'],
      to: 'uncertain',
      now,
    });
    const error = {
      code: 'worker_died',
      message: `worker process ${execution.pid ?? '(not started)'} is gone`,
    };
    const failed = await store.updateExecution(execution.id, { state: 'failed', error, endedAt: now, now });
    await store.appendEvents(
      execution.sessionId,
      [
        journalEntry(
          {
            type: 'execution.failed',
            executionId: execution.id,
            error,
            uncertainInputIds: uncertain.map((input) => input.id),
          },
          execution.id,
        ),
      ],
      { now },
    );
    if (execution.epoch > 0)
      await store.releaseLease({ sessionId: execution.sessionId, epoch: execution.epoch });
    return failed;
  }

  /** The recorded identity of a process this supervisor started. */
  static identity(pid: number): string | null {
    return processStartTime(pid);
  }
}
