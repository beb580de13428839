import type { JournalRecord, JournalRecordOf, MonitorStopReason } from '../journal/journal-event.js';

/** `stopping`: a stop was asked for and the runner has not yet said it ended. */
export type MonitorState = 'running' | 'stopping' | 'stopped';

/** A monitor as its session's journal tells it. */
export interface MonitorView {
  id: string;
  sessionId: string;
  command: string;
  cwd: string;
  persistent: boolean;
  wake: boolean;
  deadlineAt: number | null;
  permissionMode: string;
  state: MonitorState;
  /** The runner process (found again by PID and start time) and the command's process group. */
  pid: number;
  processStartTime: string | null;
  commandPid: number;
  commandStartTime: string | null;
  stderrLog: string;
  startedAt: number;
  /** Lines observed so far. */
  lines: number;
  /** Lines not yet in an input of the session. */
  pendingLines: number;
  stoppedAt: number | null;
  reason: MonitorStopReason | null;
  exitCode: number | null;
  signal: string | null;
  outputBytes: number | null;
}

/** What of a monitor the session has not been given yet: lines, and how it ended. */
export interface PendingBatch {
  monitor: MonitorView;
  fromCursor: number;
  throughCursor: number;
  lines: string[];
  ended: JournalRecordOf<'monitor.stopped'>['data'] | null;
}

interface Entry {
  view: MonitorView;
  /** The highest cursor of this monitor's output already in an input. */
  deliveredThrough: number;
  pending: Array<{ cursor: number; lines: string[] } | { cursor: number; ended: PendingBatch['ended'] }>;
}

/**
 * A session's monitors, folded from its journal in cursor order: `monitor.*` records give their
 * state, `input.accepted` records with a monitor source say which output the session was given.
 * The journal is the only record of a monitor; this is how every reader sees it.
 */
/** The records `MonitorLedger.apply` folds; every other type leaves it as it is. */
export const monitorLedgerTypes = [
  'input.accepted',
  'monitor.started',
  'monitor.observation',
  'monitor.stop_requested',
  'monitor.stopped',
] as const;

export class MonitorLedger {
  private readonly entries = new Map<string, Entry>();
  /** The cursor of the last record applied. */
  cursor = 0;

  constructor(readonly sessionId: string) {}

  apply(record: JournalRecord): void {
    this.cursor = Math.max(this.cursor, record.cursor);
    if (record.type === 'input.accepted') {
      const source = record.data.source;
      if (source?.kind !== 'monitor') return;
      const entry = this.entries.get(source.monitorId);
      if (!entry) return;
      this.markDelivered(entry, source.throughCursor);
      return;
    }
    if (record.type === 'monitor.started') {
      const { monitorId, ...started } = record.data;
      this.entries.set(monitorId, {
        view: {
          id: monitorId,
          sessionId: this.sessionId,
          ...started,
          state: 'running',
          startedAt: record.createdAt,
          lines: 0,
          pendingLines: 0,
          stoppedAt: null,
          reason: null,
          exitCode: null,
          signal: null,
          outputBytes: null,
        },
        deliveredThrough: record.cursor,
        pending: [],
      });
      return;
    }
    if (
      record.type !== 'monitor.observation' &&
      record.type !== 'monitor.stop_requested' &&
      record.type !== 'monitor.stopped'
    )
      return;
    const entry = this.entries.get(record.data.monitorId);
    if (!entry) return;
    const { view } = entry;
    if (record.type === 'monitor.observation') {
      view.lines += record.data.lines.length;
      view.pendingLines += record.data.lines.length;
      entry.pending.push({ cursor: record.cursor, lines: record.data.lines });
    } else if (record.type === 'monitor.stop_requested') {
      if (view.state === 'running') view.state = 'stopping';
    } else if (view.state !== 'stopped') {
      // The first end recorded is the end (a reconciler and the runner may both have written one).
      Object.assign(view, {
        state: 'stopped',
        stoppedAt: record.createdAt,
        reason: record.data.reason,
        exitCode: record.data.exitCode,
        signal: record.data.signal,
        outputBytes: record.data.outputBytes,
      });
      entry.pending.push({ cursor: record.cursor, ended: record.data });
    }
  }

  /** Every monitor of the session, oldest first. */
  views(): MonitorView[] {
    return [...this.entries.values()].map((entry) => ({ ...entry.view }));
  }

  view(monitorId: string): MonitorView | null {
    const entry = this.entries.get(monitorId);
    return entry ? { ...entry.view } : null;
  }

  /** Monitors whose runner has not said it ended. */
  live(): MonitorView[] {
    return this.views().filter((view) => view.state !== 'stopped');
  }

  /** One batch per monitor with output (or an end) the session has not been given. */
  pending(): PendingBatch[] {
    const batches: PendingBatch[] = [];
    for (const entry of this.entries.values()) {
      if (entry.pending.length === 0) continue;
      const lines: string[] = [];
      let ended: PendingBatch['ended'] = null;
      for (const item of entry.pending) {
        if ('lines' in item) lines.push(...item.lines);
        else ended = item.ended;
      }
      batches.push({
        monitor: { ...entry.view },
        fromCursor: entry.pending[0]!.cursor,
        throughCursor: entry.pending.at(-1)!.cursor,
        lines,
        ended,
      });
    }
    return batches;
  }

  /** The batch through `cursor` is in an input now. */
  delivered(monitorId: string, throughCursor: number): void {
    const entry = this.entries.get(monitorId);
    if (entry) this.markDelivered(entry, throughCursor);
  }

  private markDelivered(entry: Entry, throughCursor: number): void {
    entry.deliveredThrough = Math.max(entry.deliveredThrough, throughCursor);
    entry.pending = entry.pending.filter((item) => item.cursor > entry.deliveredThrough);
    entry.view.pendingLines = entry.pending.reduce(
      (count, item) => count + ('lines' in item ? item.lines.length : 0),
      0,
    );
  }
}
