import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { type JournalEvent, journalEntry, type MonitorStopReason } from '../journal/journal-event.js';
import { processStartTime } from '../journal/process-identity.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store } from '../store/store.js';
import type { MonitorSpec } from './monitor-spec.js';

export interface MonitorRunnerOptions {
  store: Store;
  spec: MonitorSpec;
  /** Where the command's stderr goes. */
  stderrLog: string;
  /** Environment of the command. */
  env: Record<string, string | undefined>;
  /** After output was journaled (and after the end), for a `--wake` monitor: start the session's worker. */
  wake?: () => Promise<void>;
  /** After each journal write: tell the session's worker on this host (it does not watch the store). */
  journaled?: () => Promise<void>;
  /** How often to look in the journal for a stop request. @default 500 */
  pollMs?: number;
  log: (line: string) => void;
}

/** An observation event holds at most this much; more lines that arrived together make several. */
const observationBytes = 64 * 1024;
/** How long a command asked to stop has before its process group is killed. */
const killGraceMs = 2000;

/**
 * One monitor's runner process: starts the command in its own process group, journals its stdout
 * line by line (lines that arrive together as one observation), and ends it at its deadline, on a
 * stop request, or past its output limit, journaling how it ended. The journal is written here only.
 */
export class MonitorRunner {
  private child: ChildProcess | undefined;
  private reason: MonitorStopReason | undefined;
  private bytes = 0;
  private limitReached = false;
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private batch: string[] = [];
  private batchSize = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();
  private cursor = 0;
  private wakeWatch: (() => void) | undefined;
  /** Wakes one at a time: two at once would both find no worker and both start one. */
  private waking: Promise<void> = Promise.resolve();

  constructor(private readonly options: MonitorRunnerOptions) {}

  /** Ends the command; the first reason given is the one journaled. */
  requestStop(reason: MonitorStopReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.options.log(`stopping: ${reason}`);
    this.killGroup('SIGTERM');
    setTimeout(() => this.killGroup('SIGKILL'), killGraceMs).unref();
  }

  /** Looks in the journal for a stop request now rather than at the next poll. */
  nudge(): void {
    this.wakeWatch?.();
  }

  async run(): Promise<number> {
    const { spec, store } = this.options;
    const stderr = openSync(this.options.stderrLog, 'a', 0o600);
    const child = spawn('/bin/sh', ['-c', spec.command], {
      cwd: spec.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', stderr],
      env: this.options.env,
    });
    closeSync(stderr);
    this.child = child;
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
      (resolve) => {
        child.on('close', (code, signal) => resolve({ code, signal }));
        child.on('error', (error) => resolve({ code: null, signal: null, error }));
      },
    );
    // Leftovers of the group (a background child holding stdout) do not keep an exited monitor open.
    child.on('exit', () => setTimeout(() => this.killGroup('SIGKILL'), 500).unref());
    if (child.pid === undefined) {
      const { error } = await closed;
      throw new Error(`could not start the command: ${error?.message ?? 'no process'}`);
    }
    // Read before `monitor.started` is journaled: a stop requested as soon as the monitor shows as
    // started (a session stopped right after) comes after this cursor, never before it.
    this.cursor = await store.lastCursor(spec.sessionId);
    await this.append({
      type: 'monitor.started',
      monitorId: spec.monitorId,
      command: spec.command,
      cwd: spec.cwd,
      persistent: spec.persistent,
      wake: spec.wake,
      deadlineAt: spec.deadlineMs === null ? null : Date.now() + spec.deadlineMs,
      permissionMode: spec.permissionMode,
      pid: process.pid,
      processStartTime: processStartTime(process.pid),
      commandPid: child.pid,
      commandStartTime: processStartTime(child.pid),
      stderrLog: this.options.stderrLog,
    });
    const deadline =
      spec.deadlineMs === null ? undefined : setTimeout(() => this.requestStop('deadline'), spec.deadlineMs);
    child.stdout?.on('data', (chunk: Buffer) => this.take(chunk));
    const watching = this.watchForStop(closed);
    const end = await closed;
    clearTimeout(deadline);
    await watching;
    this.takeRest();
    // The last output and how it ended go in one write: the agent hears them together.
    await this.append(...this.takeBatch(), {
      type: 'monitor.stopped',
      monitorId: spec.monitorId,
      reason: this.reason ?? 'exited',
      exitCode: end.code,
      signal: end.signal,
      outputBytes: this.bytes,
    });
    await this.wake();
    return 0;
  }

  private take(chunk: Buffer): void {
    if (this.limitReached) return;
    const room = this.options.spec.outputLimit - this.bytes;
    let taken = chunk;
    if (chunk.length > room) {
      taken = chunk.subarray(0, room);
      this.limitReached = true;
    }
    this.bytes += taken.length;
    const lines = (this.partial + this.decoder.write(taken)).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.add(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (this.limitReached) {
      // What is left waits for the end record (see `run`).
      clearTimeout(this.batchTimer);
      this.takeRest();
      this.requestStop('output_limit');
      return;
    }
    if (this.batch.length > 0 && !this.batchTimer)
      this.batchTimer = setTimeout(() => this.flush(), this.options.spec.batchMs);
  }

  /** What is left of the last line when the output ends. */
  private takeRest(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') this.add(rest);
  }

  private add(line: string): void {
    this.batch.push(line);
    this.batchSize += Buffer.byteLength(line) + 1;
    if (this.batchSize >= observationBytes) this.flush();
  }

  private flush(): void {
    const observation = this.takeBatch();
    if (observation.length > 0) void this.append(...observation).then(() => this.wake());
  }

  /** The lines gathered so far as an observation (none if there are none). */
  private takeBatch(): JournalEvent[] {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.batch.length === 0) return [];
    const lines = this.batch;
    this.batch = [];
    this.batchSize = 0;
    return [{ type: 'monitor.observation', monitorId: this.options.spec.monitorId, lines }];
  }

  private wake(): Promise<void> {
    const { wake, log } = this.options;
    if (!wake) return Promise.resolve();
    this.waking = this.waking.then(() =>
      wake().catch((error: unknown) =>
        log(`wake: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
    return this.waking;
  }

  /** Journal writes in order, one at a time; a failed one is logged, the next still tried. */
  private append(...events: JournalEvent[]): Promise<void> {
    const { store, spec, log } = this.options;
    this.writes = this.writes.then(() =>
      store
        .appendEvents(
          spec.sessionId,
          events.map((event) => journalEntry(event)),
          { now: Date.now() },
        )
        .then(() => this.options.journaled?.())
        .catch((error: unknown) => log(`journal: ${error instanceof Error ? error.message : String(error)}`)),
    );
    return this.writes;
  }

  /** A stop request in the journal (`monitor.stop_requested`), from any node. */
  private async watchForStop(closed: Promise<unknown>): Promise<void> {
    const { store, spec } = this.options;
    let done = false;
    void closed.then(() => {
      done = true;
    });
    while (!done && !this.reason) {
      await Promise.race([
        closed,
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs ?? 500);
          this.wakeWatch = () => {
            clearTimeout(timer);
            resolve();
          };
        }),
      ]);
      if (done) return;
      try {
        for (const record of await readJournal(store, spec.sessionId, { after: this.cursor })) {
          this.cursor = record.cursor;
          if (record.type === 'monitor.stop_requested' && record.data.monitorId === spec.monitorId)
            this.requestStop(record.data.reason);
        }
      } catch (error) {
        this.options.log(`watch: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone.
    }
  }
}
