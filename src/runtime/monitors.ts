import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { permissionModes } from '../config/claude-config.js';
import { InvalidInputError, MonitorStartError, NotFoundError, StateError } from '../errors/index.js';
import { journalEntry } from '../journal/journal-event.js';
import { isRemote } from '../journal/process-identity.js';
import { deliverPending, readLedger, reconcileMonitors, runnerAlive } from '../monitor/monitor-delivery.js';
import type { MonitorLedger, MonitorView } from '../monitor/monitor-ledger.js';
import type { MonitorRecord } from '../monitor/monitor-lines.js';
import { spawnMonitorRunner } from '../monitor/monitor-spawn.js';
import {
  defaultMonitorBatchMs,
  defaultMonitorDeadlineMs,
  defaultMonitorOutputLimit,
  type MonitorSpec,
} from '../monitor/monitor-spec.js';
import type { InputRecord, SessionRecord } from '../store/store.js';
import { type Access, resources } from './access.js';
import type { Runtime } from './runtime.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

export interface MonitorStartOptions extends ActorOptions {
  /** A shell command (`/bin/sh -c`), run in the session's working directory. */
  command: string;
  /** How long it may run, in ms; a persistent monitor has none. @default 600000 (10 minutes) */
  deadlineMs?: number;
  /** No deadline, and it outlives the worker: its output waits for the next worker. @default false */
  persistent?: boolean;
  /** Output starts the session's worker when none runs. @default false */
  wake?: boolean;
}

export interface MonitorLimits {
  /** Bytes of stdout after which a monitor stops with `output_limit`. @default 1048576 */
  outputLimit?: number;
  /** Lines that arrive within this many ms are one observation. @default 100 */
  batchMs?: number;
}

/** How long a runner has to say it started, and a stopped monitor to say it ended. */
const startWaitMs = 15_000;
const stopWaitMs = 10_000;

/**
 * Monitors: detached commands whose stdout lines become observations in their session's journal,
 * delivered to the agent between turns as one input marked with its source. A runner process per
 * monitor (src/monitor) writes everything; this part starts, stops and reads them. The journal is
 * a monitor's only record, so monitors are addressed within their session.
 */
export class Monitors {
  private readonly outputLimit: number;
  private readonly batchMs: number;

  constructor(
    private readonly runtime: Runtime,
    private readonly context: RuntimeContext,
    private readonly access: Access,
    limits: MonitorLimits = {},
  ) {
    this.outputLimit = limits.outputLimit ?? defaultMonitorOutputLimit;
    this.batchMs = limits.batchMs ?? defaultMonitorBatchMs;
  }

  /**
   * Starts a monitor for the session: the command runs detached in its own process group, in the
   * session's working directory. It runs a command on this host, so it takes `admin`.
   */
  async start(sessionId: string, options: MonitorStartOptions): Promise<MonitorView> {
    if (typeof options.command !== 'string' || options.command.trim() === '')
      throw new InvalidInputError('command must not be empty');
    const persistent = options.persistent === true;
    if (persistent && options.deadlineMs !== undefined)
      throw new InvalidInputError('a persistent monitor has no deadline');
    const deadlineMs = persistent ? null : (options.deadlineMs ?? defaultMonitorDeadlineMs);
    if (deadlineMs !== null && (!Number.isInteger(deadlineMs) || deadlineMs <= 0))
      throw new InvalidInputError('deadline must be a positive whole number of milliseconds', {
        deadlineMs,
      });
    const session = await this.requireSession(sessionId);
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', resources.all);
    if (session.state !== 'active') throw new StateError(`session ${sessionId} is archived`);
    const spec: MonitorSpec = {
      sessionId,
      monitorId: `mon_${randomBytes(6).toString('hex')}`,
      command: options.command,
      cwd: session.cwd,
      persistent,
      wake: options.wake === true,
      deadlineMs,
      permissionMode: permissionModeOf(session),
      outputLimit: this.outputLimit,
      batchMs: this.batchMs,
    };
    const pid = spawnMonitorRunner({ paths: this.context.paths, env: this.context.env, spec });
    const waitUntil = Date.now() + startWaitMs;
    for (;;) {
      const view = (await readLedger(this.context.store, sessionId)).view(spec.monitorId);
      if (view) return view;
      if (Date.now() > waitUntil)
        throw new MonitorStartError(
          `monitor ${spec.monitorId} (runner ${pid}) did not start; see logs/monitor-${spec.monitorId}.log in the data directory`,
          { monitorId: spec.monitorId },
        );
      await sleep(25);
    }
  }

  /** The session's monitors, oldest first; one whose runner died is recorded as `lost` first. */
  async list(sessionId: string): Promise<MonitorView[]> {
    return (await this.ledger(sessionId)).views();
  }

  async get(sessionId: string, monitorId: string): Promise<MonitorView> {
    const view = (await this.ledger(sessionId)).view(monitorId);
    if (!view) throw new NotFoundError(`monitor ${monitorId} not found in session ${sessionId}`);
    return view;
  }

  /** The monitor's journal records: started, its observations, a stop request, how it ended. */
  async events(sessionId: string, monitorId: string): Promise<MonitorRecord[]> {
    await this.get(sessionId, monitorId);
    const records: MonitorRecord[] = [];
    for await (const record of this.runtime.events(sessionId)) {
      if (
        (record.type === 'monitor.started' ||
          record.type === 'monitor.observation' ||
          record.type === 'monitor.stop_requested' ||
          record.type === 'monitor.stopped') &&
        record.data.monitorId === monitorId
      )
        records.push(record);
    }
    return records;
  }

  /** Stops a monitor and waits (a while) for its runner to say it ended. Stopping a stopped one changes nothing. */
  async stop(sessionId: string, monitorId: string): Promise<MonitorView> {
    const monitor = await this.get(sessionId, monitorId);
    if (monitor.state === 'stopped') return monitor;
    await this.requestStop(monitor, 'stopped');
    const waitUntil = Date.now() + stopWaitMs;
    for (;;) {
      const view = await this.get(sessionId, monitorId);
      if (view.state === 'stopped' || Date.now() > waitUntil) return view;
      await sleep(25);
    }
  }

  /** The session stops: its monitors that are not persistent end with it. */
  async stopWithSession(sessionId: string): Promise<void> {
    for (const monitor of (await this.ledger(sessionId)).live())
      if (!monitor.persistent && monitor.state === 'running')
        await this.requestStop(monitor, 'session_stopped');
  }

  /**
   * A `--wake` monitor journaled output: with no live worker, its pending output becomes an input
   * now, which starts one. A live worker takes the output itself, between turns.
   */
  async wake(sessionId: string): Promise<InputRecord[]> {
    if (await this.runtime.liveExecution(sessionId)) return [];
    const ledger = await readLedger(this.context.store, sessionId);
    return deliverPending(ledger, (input) =>
      this.runtime.journalAndDispatch(sessionId, { ...input, command: false }),
    );
  }

  private async requestStop(monitor: MonitorView, reason: 'stopped' | 'session_stopped'): Promise<void> {
    await this.context.store.appendEvents(
      monitor.sessionId,
      [journalEntry({ type: 'monitor.stop_requested', monitorId: monitor.id, reason })],
      { now: Date.now() },
    );
    // Its runner reads the request at its next poll; one on this host is told at once.
    if (monitor.processStartTime !== null && !isRemote(monitor.processStartTime) && runnerAlive(monitor)) {
      try {
        process.kill(monitor.pid, 'SIGUSR2');
      } catch {
        // Gone since the check.
      }
    }
  }

  private async ledger(sessionId: string): Promise<MonitorLedger> {
    await this.requireSession(sessionId);
    const ledger = await readLedger(this.context.store, sessionId);
    await reconcileMonitors(this.context.store, ledger);
    return ledger;
  }

  private async requireSession(sessionId: string): Promise<SessionRecord> {
    const session = await this.context.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`session ${sessionId} not found`, { session: sessionId });
    return session;
  }
}

/** The permission class the monitor's output is delivered under: the session's mode at launch. */
function permissionModeOf(session: SessionRecord): string {
  const mode = session.config.permissionMode ?? 'default';
  if (typeof mode !== 'string' || !(permissionModes as readonly string[]).includes(mode))
    throw new StateError(`session ${session.id} has an unknown permission mode: it cannot run monitors`);
  return mode;
}
