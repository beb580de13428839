import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataPaths } from '../journal/data-dir.js';
import { type HandoffMessage, handoffSocketPath } from '../journal/handoff.js';
import { journalEntry } from '../journal/journal-event.js';
import {
  isProcessAlive,
  isRemote,
  killOrphanedGroup,
  processStartTime,
} from '../journal/process-identity.js';
import {
  type ExecutionRecord,
  type InputRecord,
  type LeaseRecord,
  liveExecutionStates,
  type Store,
} from '../store/store.js';
import { HandoffClient } from './handoff-client.js';

export interface SupervisorOptions {
  store: Store;
  paths: DataPaths;
  /** Environment for workers (credentials travel this way only). @default process.env */
  env?: Record<string, string | undefined>;
}

/**
 * The worker's entry point: beside this file once built; from the TypeScript sources (tests, tsx)
 * it is the build's, since a detached `node` cannot load `.ts` files.
 */
const workerEntry = import.meta.url.endsWith('.ts')
  ? fileURLToPath(new URL('../../dist/worker/worker-main.js', import.meta.url))
  : fileURLToPath(new URL('../worker/worker-main.js', import.meta.url));

/**
 * V8 flags for worker processes only: a worker is a small, long-lived, mostly idle process, so it
 * trades a little speed for memory (an idle worker's private memory 40 → 30 MiB, decision 0171),
 * and collects its garbage itself once it has gone quiet after a turn, not when V8's memory reducer
 * chooses to, up to a minute later (src/worker/quiet-gc.ts, decision 0173).
 */
const workerExecArgv = ['--optimize-for-size', '--expose-gc', '--no-memory-reducer'];

/**
 * How long a send waits for a worker to take an input handed to it before journaling the input
 * itself (a worker answers in a few milliseconds unless the machine is overloaded), and how long a
 * worker that did not is passed over.
 */
const handoffTimeouts = { timeoutMs: 500, slowForMs: 30_000 };

/** A worker that has not taken its lease within this time after being spawned is considered dead. */
const startGraceMs = 30_000;

/**
 * Starts workers and notices dead ones. It never restarts a worker or replays an input on its own:
 * a dead worker's in-flight inputs become `uncertain`, its execution `failed`, and only an explicit
 * resume starts a new one.
 */
export class Supervisor {
  /** Connections to the workers on this host that inputs were handed to. */
  private readonly handoffs = new HandoffClient(handoffTimeouts);

  constructor(private readonly options: SupervisorOptions) {}

  /** Closes the connections to workers; the workers go on. */
  close(): void {
    this.handoffs.close();
  }

  /** Spawns a detached worker for the execution; it survives this process. Returns its identity. */
  spawnWorker(execution: ExecutionRecord): { pid: number; processStartTime: string | null } {
    const { paths } = this.options;
    const log = openSync(join(paths.logs, `${execution.id}.out`), 'a', 0o600);
    const child = spawn(
      process.execPath,
      [...workerExecArgv, workerEntry, paths.root, execution.sessionId, execution.id],
      {
        detached: true,
        stdio: ['ignore', log, log],
        env: this.options.env ?? process.env,
        cwd: paths.root,
      },
    );
    child.unref();
    if (child.pid === undefined) throw new Error('could not start a worker process');
    return { pid: child.pid, processStartTime: processStartTime(child.pid) };
  }

  /**
   * Spawns a warm pool entry (`worker-main DATA_DIR --warm NAME`): a worker with no execution yet, and an
   * IPC channel to this process, over which it is told its launch and later its execution. Detached
   * like any worker, so that once it takes an execution it outlives this process.
   */
  spawnWarmEntry(name: string): ChildProcess {
    const { paths } = this.options;
    const log = openSync(join(paths.logs, `warm-${name}.out`), 'a', 0o600);
    const child = spawn(process.execPath, [...workerExecArgv, workerEntry, paths.root, '--warm', name], {
      detached: true,
      stdio: ['ignore', log, log, 'ipc'],
      env: this.options.env ?? process.env,
      cwd: paths.root,
    });
    closeSync(log);
    return child;
  }

  /**
   * Tells a live worker on this host to look at the journal now rather than at its next poll. Only
   * a worker that has taken its lease (`running`/`idle`) has its signal handler in place.
   */
  nudge(execution: ExecutionRecord): void {
    if (execution.state !== 'running' && execution.state !== 'idle') return;
    if (execution.pid === null || !this.isHere(execution)) return;
    try {
      process.kill(execution.pid, 'SIGUSR2');
    } catch {
      // Gone since the check: the supervisor notices dead workers on its own.
    }
  }

  /**
   * Hands an input to the idle live worker of its session on this host (decision 0132), which
   * journals it and starts its turn in one transaction. Null when there is no such worker or it did
   * not take it in time: the caller journals the input itself, under the same message id.
   */
  async handOff(execution: ExecutionRecord, message: HandoffMessage): Promise<InputRecord | null> {
    if (this.options.store.kind !== 'sqlite' || execution.state !== 'idle' || !this.isHere(execution))
      return null;
    const path = handoffSocketPath(this.options.paths, execution.id);
    return path ? this.handoffs.handOff(path, message) : null;
  }

  /** Whether the execution's worker runs on this host, and still does. */
  private isHere(execution: ExecutionRecord): boolean {
    if (execution.pid === null || execution.processStartTime === null || isRemote(execution.processStartTime))
      return false;
    return isProcessAlive(execution.pid, execution.processStartTime);
  }

  /** Whether the execution's worker process is still running (PID and start time). */
  isAlive(execution: ExecutionRecord): boolean {
    if (execution.pid === null) return Date.now() - execution.createdAt < startGraceMs;
    return isProcessAlive(execution.pid, execution.processStartTime);
  }

  /**
   * Marks executions whose worker died as failed, their in-flight inputs uncertain, and releases
   * their lease. With `takeOverLapsed`, also those whose process is alive but whose lease has
   * lapsed (for a resume). Returns the executions it marked.
   */
  async reconcile(
    sessionId?: string,
    options: { takeOverLapsed?: boolean } = {},
  ): Promise<ExecutionRecord[]> {
    const { store } = this.options;
    const live = sessionId
      ? (await store.listExecutions(sessionId)).filter((execution) =>
          liveExecutionStates.includes(execution.state),
        )
      : await store.listExecutionsByState([...liveExecutionStates]);
    const dead: ExecutionRecord[] = [];
    for (const execution of live) {
      if (this.isAlive(execution)) {
        // A process that is still there but let its lease lapse (stopped, hung, cut off from the
        // store) may still wake and renew it; only an explicit resume takes over from it, after
        // which its writes are fenced off.
        if (!options.takeOverLapsed) continue;
        const lease = await store.getLease(execution.sessionId);
        if (!Supervisor.leaseLapsed(execution, lease)) continue;
        dead.push(
          await this.markDead(execution, {
            code: 'lease_expired',
            message: `worker process ${execution.pid} stopped renewing its lease`,
          }),
        );
        continue;
      }
      // On another host only the lease tells: wait until it has expired.
      const lease = await store.getLease(execution.sessionId);
      if (lease && lease.owner === execution.id && lease.expiresAt > Date.now() && execution.pid === null)
        continue;
      dead.push(
        await this.markDead(execution, {
          code: 'worker_died',
          message: `worker process ${execution.pid ?? '(not started)'} is gone`,
        }),
      );
    }
    return dead;
  }

  /** True when the execution took the session's lease and no longer holds it unexpired. */
  private static leaseLapsed(execution: ExecutionRecord, lease: LeaseRecord | null): boolean {
    if (execution.epoch === 0) return false;
    if (!lease || lease.epoch !== execution.epoch || lease.owner !== execution.id) return true;
    return lease.expiresAt <= Date.now();
  }

  private async markDead(
    execution: ExecutionRecord,
    error: { code: string; message: string },
  ): Promise<ExecutionRecord> {
    const { store } = this.options;
    const now = Date.now();
    if (
      execution.pid !== null &&
      execution.processStartTime !== null &&
      !isRemote(execution.processStartTime)
    ) {
      killOrphanedGroup(execution.pid);
      // A killed worker leaves its handoff socket behind.
      const socket = handoffSocketPath(this.options.paths, execution.id);
      if (socket) rmSync(socket, { force: true });
    }
    const dispatching = await store.listInputs(execution.sessionId, { states: ['dispatching'] });
    const uncertain = await store.updateInputStates({
      sessionId: execution.sessionId,
      inputIds: dispatching.map((input) => input.id),
      from: ['dispatching'],
      to: 'uncertain',
      now,
    });
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
}
