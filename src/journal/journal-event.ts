import type { AgentEvent } from '../backends/agent-event.js';
import type { Seed } from '../seeds/seed-schema.js';
import type { InteractionRecord, NewEvent } from '../store/store.js';

/** The sender of a peer message, as the receiving session records it. */
export interface PeerSource {
  kind: 'peer';
  sessionId: string;
  /** `<organization>/<role>` of the sender, or null for a session made without a role. */
  role: string | null;
  permissionMode: string;
}

/** The `reason` of the `execution.stopped` of a worker that left after its idle timeout. */
export const idleTimeoutReason = 'idle timeout';

/** A batch of a monitor's output, as the session records the input that delivers it. */
export interface MonitorSource {
  kind: 'monitor';
  monitorId: string;
  /** The session's permission mode when the monitor was started. */
  permissionMode: string;
  /** The batch holds the monitor's observations from this cursor on… */
  fromCursor: number;
  /** …up to and including this one. */
  throughCursor: number;
}

/** Where an input came from when not from a client of the session. */
export type InputSource = PeerSource | MonitorSource;

/** Why a monitor ended. `lost`: its runner process died without saying (found by PID and start time). */
export type MonitorStopReason =
  | 'exited'
  | 'deadline'
  | 'stopped'
  | 'session_stopped'
  | 'output_limit'
  | 'lost';

/** A monitor's life in its session's journal (src/monitor): the journal is its only record. */
export type MonitorEvent =
  | {
      type: 'monitor.started';
      monitorId: string;
      command: string;
      cwd: string;
      persistent: boolean;
      wake: boolean;
      /** When the deadline passes (ms since the epoch); null for a persistent monitor. */
      deadlineAt: number | null;
      permissionMode: string;
      /** The runner process that journals the output: how the monitor is found again. */
      pid: number;
      processStartTime: string | null;
      /** The command's process group (its shell's PID) and that shell's start time. */
      commandPid: number;
      commandStartTime: string | null;
      /** Where the command's stderr goes. */
      stderrLog: string;
    }
  /** Lines of the command's stdout that arrived together. */
  | { type: 'monitor.observation'; monitorId: string; lines: string[] }
  /** Someone asked the monitor to stop; its runner ends the command and journals `monitor.stopped`. */
  | { type: 'monitor.stop_requested'; monitorId: string; reason: 'stopped' | 'session_stopped' }
  | {
      type: 'monitor.stopped';
      monitorId: string;
      reason: MonitorStopReason;
      /** The command's exit code, null when a signal ended it or it was never seen to end. */
      exitCode: number | null;
      signal: string | null;
      /** Bytes of stdout read. */
      outputBytes: number;
    };

/**
 * Events that agentd itself writes to a session's journal, beside the backend's `AgentEvent`s
 * (which are journaled under their own `type`, with the native message kept in `raw`).
 */
export type RuntimeEvent =
  | {
      type: 'input.accepted';
      inputId: string;
      messageId: string;
      text: string;
      /** True for `/compact`: the agent gets it as its command; any other text is plain text. */
      command?: boolean;
      traceparent?: string;
      /** Where the input came from when not from a client of the session: another session, a monitor. */
      source?: InputSource;
      /** It arrived mid-turn and interrupted that turn (`interrupt`), or rolled it back (`rollback`). */
      ifBusy?: 'interrupt' | 'rollback';
    }
  | { type: 'execution.started'; executionId: string; epoch: number; pid: number }
  | { type: 'execution.stopped'; executionId: string; reason: string }
  | {
      type: 'execution.failed';
      executionId: string;
      error: { code: string; message: string };
      uncertainInputIds: string[];
    }
  | { type: 'interaction.requested'; interaction: InteractionRecord }
  | {
      type: 'interaction.answered';
      interactionId: string;
      answer: Record<string, unknown>;
      /** The principal whose answer it was, when the edge that took it knows (HTTP: the token's). */
      answeredBy?: string;
    }
  | { type: 'work.settled'; executionId: string }
  /** A tool use decided by a persisted permission rule, without asking anyone (approval scopes). */
  | {
      type: 'interaction.auto_decided';
      toolName: string;
      toolUseId: string | null;
      input: Record<string, unknown>;
      decision: 'approve' | 'deny';
      /** The rule that decided it. */
      rule: { id: string; rule: string; scope: 'session' | 'role' | 'organization'; target: string };
    }
  /** A request for the live worker, read from the journal (works across nodes). */
  | {
      type: 'control.interrupt';
      reason: string;
      /** Only the turn of this input is interrupted; a later turn is not (a message sent mid-turn). */
      inputId?: string;
      /** The interrupted turn is also rolled back: the agent resumes from before it. */
      rollback?: boolean;
      /** The input whose arrival asked for it. */
      byInputId?: string;
    }
  /**
   * The turn of `inputId` was interrupted by the input `byInputId` (double texting). Its events,
   * cursors `fromCursor` to `toCursor` of this execution, stay in the journal; with `rolledBack`
   * the input and those events were rolled back: the agent resumed from before the input and
   * never sees them again.
   */
  | {
      type: 'turn.interrupted';
      inputId: string;
      byInputId: string | null;
      rolledBack: boolean;
      fromCursor: number;
      toCursor: number;
    }
  /**
   * The session will take no new input: its role's execution surface changed (`role_changed`),
   * someone asked for a fresh session (`new`), or it was archived by hand (`archived`).
   */
  | { type: 'session.archived'; reason: 'role_changed' | 'new' | 'archived'; roleVersion: number | null }
  /** This session sent a peer message: it is the input `inputId` of session `to`. */
  | { type: 'peer.sent'; to: string; inputId: string; messageId: string }
  /** An accepted input waits: the session, its role or its organization reached its spending limit. */
  | {
      type: 'budget.exceeded';
      scope: 'session' | 'role' | 'organization';
      target: string;
      limitUsd: number;
      spentUsd: number;
    }
  /**
   * A schedule fired on this session: the input that follows is its prompt. `occurrence` is the
   * time the cron expression gave (ISO 8601), `late` says it was fired after downtime (`run_once`),
   * `missed` how many earlier occurrences were not fired.
   */
  | {
      type: 'schedule.fired';
      scheduleId: string;
      occurrence: string;
      late: boolean;
      missed: number;
      messageId: string;
    }
  | SeedEvent
  | MonitorEvent
  | GoalEvent;

/**
 * Claude's own goal (`/goal`), as agentd reads it from claude's messages: claude keeps the goal;
 * these records only say what it did (docs/decisions/0110-native-goal-evidence.md).
 */
export type GoalEvent =
  /** claude took the goal ("Goal set: …"). */
  | { type: 'goal.set'; condition: string }
  /** claude's Stop hook judged the condition not yet met, and the turn went on ("Stop hook feedback"). */
  | { type: 'goal.evaluated'; condition: string; met: false; reason: string }
  /** A turn under the goal ended on its own: the Stop hook let it stop, and claude cleared the goal. */
  | { type: 'goal.met'; condition: string }
  /** The goal was cleared (`/goal clear`, or by claude after an error). */
  | { type: 'goal.cleared'; condition: string | null };

/** What the agent says of a criterion through its `report_progress` tool. */
export type ReportedState = 'in_progress' | 'met' | 'blocked';
/** How a seed run ends (`interrupted` stays resumable). */
export type SeedOutcome = 'satisfied' | 'unsatisfied' | 'budget_exceeded' | 'interrupted' | 'failed';

/** A seed run's events (src/seeds): the seed, the agent's reports, agentd's checks, iterations, the end. */
export type SeedEvent =
  /** The session runs this seed; the first event of a seed run. */
  | { type: 'seed.started'; seed: Seed; cwd: string }
  /** Iteration `iteration` starts with the input whose message id is `messageId`. */
  | { type: 'seed.iteration'; iteration: number; messageId: string; failing: string[] }
  /** The agent reported a criterion (report_progress); never makes a checked criterion met. */
  | { type: 'seed.criterion'; criterionId: string; state: ReportedState; evidence: string }
  /** agentd ran a criterion's check after iteration `iteration`'s turn. */
  | {
      type: 'seed.check';
      criterionId: string;
      iteration: number;
      command: string;
      exitCode: number | null;
      expected: number;
      passed: boolean;
      timedOut: boolean;
      /** The output's end (stdout and stderr as they came), at most a few KiB. */
      outputTail: string;
      durationMs: number;
    }
  | { type: 'seed.finished'; outcome: SeedOutcome; reason: string; iterations: number };

/** Everything a session's journal holds: the backend's events and agentd's own. */
export type JournalEvent = AgentEvent | RuntimeEvent;
export type JournalEventType = JournalEvent['type'];

/** An event's data as journaled: the event without its `type`. */
export type JournalData<T extends JournalEventType> = Omit<Extract<JournalEvent, { type: T }>, 'type'>;

/** Where a journaled event sits: its session, cursor, the execution that wrote it, and when. */
export interface JournalPosition {
  sessionId: string;
  /** Per session, from 1, growing by exactly 1 with each event, across executions. */
  cursor: number;
  executionId: string | null;
  createdAt: number;
}

/** One journaled event, read back and validated: narrowing on `type` types `data`. */
export type JournalRecord = {
  [T in JournalEventType]: JournalPosition & { type: T; data: JournalData<T> };
}[JournalEventType];

/** A journal record of one type. */
export type JournalRecordOf<T extends JournalEventType> = Extract<JournalRecord, { type: T }>;

/** The store's form of an event: its type, the rest as data. */
export function journalEntry(event: JournalEvent, executionId: string | null = null): NewEvent {
  const { type, ...data } = event;
  return { type, data, executionId };
}

/** The event a record holds, whole again: its type with its data. */
export function eventOf<R extends JournalRecord>(record: R): Extract<JournalEvent, { type: R['type'] }> {
  // `data` is the event without `type` (see journalEntry), so putting `type` back restores the member.
  return { type: record.type, ...record.data } as Extract<JournalEvent, { type: R['type'] }>;
}
