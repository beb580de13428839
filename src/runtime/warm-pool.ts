import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { processStartTime } from '../journal/process-identity.js';
import { canonicalJson } from '../store/json-equal.js';
import type { SessionRecord } from '../store/store.js';
import type { FromWarmEntry, ToWarmEntry, WarmAssignment, WarmLaunch } from '../worker/warm-entry.js';

/** How long an entry may take to acknowledge the execution it was given before it is given up. */
const assignTimeoutMs = 5000;

/**
 * How long after a take the pool refills: a new entry's start (a Node process, and for a warm entry
 * a `claude`'s boot) would otherwise compete for the CPU with the session it was taken for.
 */
const refillDelayMs = 3000;

/** Entries of one launch that may die before booting, in a row, before the pool stops starting them. */
const maxFailures = 3;

/** One launch the pool keeps entries for (null: spares, for any session), and how many. */
export interface WarmTarget {
  launch: WarmLaunch | null;
  size: number;
}

export interface WarmPoolOptions {
  /** Starts one entry process (`Supervisor.spawnWarmEntry`). */
  spawn(name: string): ChildProcess;
  /** The launches to keep warm now, from the roles as they are (read at each refill). */
  targets(): Promise<WarmTarget[]>;
  log?: (line: string) => void;
}

/** A warm entry as the pool sees it: its process, and the launch it boots for (null: a spare). */
interface Entry {
  child: ChildProcess;
  launch: WarmLaunch | null;
  key: string;
  ready: boolean;
  exited: boolean;
}

/** The key of spare entries: they boot nothing, and take any session. */
const spareKey = 'spare';

/** The identity of a warm launch (key order aside): equal keys launch equal `claude`s. */
export function warmKey(launch: WarmLaunch | null): string {
  if (!launch) return spareKey;
  return canonicalJson([launch.provider, launch.organization, launch.role, launch.cwd, launch.config]);
}

/** What a session stores beside its config for agentd alone: it does not change the launch. */
const sessionOnlyFields = ['initialPrompt', 'acceptPeers'];

/** The launch of a session's first execution, to compare with the pool's. */
export function launchOfSession(session: SessionRecord): WarmLaunch {
  const config = { ...session.config };
  for (const field of sessionOnlyFields) delete config[field];
  return {
    provider: session.provider,
    organization: session.organization,
    role: session.role,
    cwd: session.cwd,
    config,
  };
}

/**
 * Warm starts: worker processes started before their sessions exist, each with a `claude` booted
 * (the SDK's `startup()`) for one launch (provider, role, model, system prompt, tools, skills, cwd).
 * A new session whose launch is exactly one of those takes an entry instead of a cold worker. Spare
 * entries boot no `claude`: loaded and waiting, one takes any other session's execution (a new
 * session no entry fits, a stopped or hibernated one resuming), which skips the worker's own start.
 * The pool refills in the background. The entries are this process's children over IPC until taken:
 * when it exits, they exit with their `claude`. Taken, an entry is an ordinary detached worker.
 */
export class WarmPool {
  private readonly entries = new Set<Entry>();
  private refilling: Promise<void> = Promise.resolve();
  /** Entries of a launch that died before their `claude` booted, in a row: at 3 it is not retried. */
  private readonly failures = new Map<string, number>();
  private refillTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: WarmPoolOptions) {}

  /**
   * The entries not taken yet: PID, whether it is a spare, and whether its `claude` is booting
   * already (a spare: its SDK is loaded) (`ready`).
   */
  list(): WarmEntryInfo[] {
    return [...this.entries].flatMap((entry) =>
      entry.child.pid === undefined || entry.exited
        ? []
        : [{ pid: entry.child.pid, spare: entry.launch === null, ready: entry.ready }],
    );
  }

  /**
   * Starts entries until every target has its size, and ends those no target wants any more (a
   * role changed). Runs one refill at a time; resolves once this one has spawned what it needed.
   */
  refill(): Promise<void> {
    this.refilling = this.refilling
      .then(() => this.refillNow())
      .catch((error: unknown) => {
        this.options.log?.(
          `warm pool: refill failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    return this.refilling;
  }

  /**
   * An entry for the session's next execution, taken out of the pool: one booted for its exact
   * launch (only for a first execution: a session that has run before resumes its `claude`, and a
   * fresh one does not fit), else a spare; null when there is neither. The pool refills shortly
   * after, also to follow roles that changed.
   */
  take(session: SessionRecord): WarmEntryHandle | null {
    if (this.closed) return null;
    this.refillTimer ??= setTimeout(() => {
      this.refillTimer = undefined;
      void this.refill();
    }, refillDelayMs).unref();
    const entry =
      (session.nativeSessionId === null ? this.entryOf(warmKey(launchOfSession(session))) : undefined) ??
      this.entryOf(spareKey);
    if (!entry?.child.pid) return null;
    this.entries.delete(entry);
    const pid = entry.child.pid;
    return {
      pid,
      processStartTime: processStartTime(pid),
      assign: (assignment) => this.assign(entry, assignment),
    };
  }

  /** An entry of the key not taken yet, one already booted or loaded first. */
  private entryOf(key: string): Entry | undefined {
    const candidates = [...this.entries].filter((entry) => entry.key === key && !entry.exited);
    return candidates.find((each) => each.ready) ?? candidates[0];
  }

  /** Ends every entry not taken. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    await this.refilling;
    for (const entry of this.entries) this.end(entry);
    this.entries.clear();
  }

  private async refillNow(): Promise<void> {
    if (this.closed) return;
    const targets = await this.options.targets();
    const wanted = new Map(targets.map((target) => [warmKey(target.launch), target]));
    for (const entry of [...this.entries]) {
      if (entry.exited || !wanted.has(entry.key)) {
        this.entries.delete(entry);
        this.end(entry);
      }
    }
    for (const [key, target] of wanted) {
      if ((this.failures.get(key) ?? 0) >= maxFailures) continue;
      let have = [...this.entries].filter((entry) => entry.key === key).length;
      while (have < target.size && !this.closed) {
        this.start(key, target.launch);
        have += 1;
      }
    }
  }

  private start(key: string, launch: WarmLaunch | null): void {
    const child = this.options.spawn(randomUUID());
    const entry: Entry = { child, launch, key, ready: false, exited: false };
    this.entries.add(entry);
    child.on('message', (message: FromWarmEntry) => {
      if (message.type !== 'ready') return;
      entry.ready = true;
      this.failures.delete(key);
    });
    // Killed or crashed before it was taken: replaced. A taken one is no longer the pool's.
    child.once('exit', () => {
      const wasEntry = this.entries.delete(entry);
      if (wasEntry && !entry.ready && !entry.exited) {
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        if (failures >= maxFailures)
          this.options.log?.(
            `warm pool: ${launch ? `entries for role ${launch.role}` : 'spare entries'} keep failing to start; not retried`,
          );
      }
      entry.exited = true;
      if (wasEntry && !this.closed) {
        this.options.log?.(`warm pool: entry ${child.pid} exited before it was taken; replacing it`);
        void this.refill();
      }
    });
    child.on('error', () => {});
    this.send(child, launch ? { type: 'launch', launch } : { type: 'spare' });
  }

  /**
   * Gives the entry its execution and waits for it to say it took it. False when it is gone or did
   * not answer (it is then killed, so that it can never run the execution as well).
   */
  private assign(entry: Entry, assignment: WarmAssignment): Promise<boolean> {
    const { child } = entry;
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (taken: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (!taken) this.end(entry, 'SIGKILL');
        else child.unref();
        resolve(taken);
      };
      const onMessage = (message: FromWarmEntry) => {
        if (message.type === 'assigned' && message.executionId === assignment.executionId) settle(true);
      };
      const onExit = () => settle(false);
      const timer = setTimeout(() => settle(false), assignTimeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (entry.exited || !this.send(child, { type: 'assign', ...assignment })) settle(false);
    });
  }

  private send(child: ChildProcess, message: ToWarmEntry): boolean {
    if (!child.connected) return false;
    try {
      return child.send(message, (error) => {
        if (error) this.options.log?.(`warm pool: could not reach entry ${child.pid}: ${error.message}`);
      });
    } catch {
      return false;
    }
  }

  private end(entry: Entry, signal: NodeJS.Signals = 'SIGTERM'): void {
    entry.exited = true;
    try {
      if (entry.child.connected) entry.child.disconnect();
      entry.child.kill(signal);
    } catch {
      // Gone already.
    }
    entry.child.unref();
  }
}

/** An entry of the pool not taken yet. */
export interface WarmEntryInfo {
  pid: number;
  spare: boolean;
  ready: boolean;
}

/** An entry taken for one execution: record its identity on the execution, then assign it. */
export interface WarmEntryHandle {
  pid: number;
  processStartTime: string | null;
  /** True once the entry has taken the execution; false when it could not (start a cold worker). */
  assign(assignment: WarmAssignment): Promise<boolean>;
}
