/**
 * Schedules: a cron expression in a time zone that starts a session under a role, or sends to a
 * channel, once per occurrence however many nodes share the store
 * (docs/decisions/0160-schedule-firing.md). All times are epoch milliseconds.
 */

export const scheduleStates = ['active', 'paused'] as const;
export type ScheduleState = (typeof scheduleStates)[number];

/**
 * What happens to occurrences that passed while no node was running (or the schedule was paused):
 * `skip` fires none of them, `run_once` fires the latest one once, late.
 */
export const missedPolicies = ['skip', 'run_once'] as const;
export type MissedPolicy = (typeof missedPolicies)[number];

/** A new session of a role each occurrence, or a message to a channel's session. */
export type ScheduleTarget = { kind: 'role'; role: string } | { kind: 'channel'; channel: string };

export interface ScheduleRecord {
  id: string;
  organization: string;
  /** Five fields: minute hour day-of-month month day-of-week. */
  cron: string;
  /** IANA time zone the expression is read in, such as `Europe/Berlin`. */
  timezone: string;
  target: ScheduleTarget;
  prompt: string;
  /** The working directory of the sessions it starts; null: the runtime's. */
  cwd: string | null;
  missed: MissedPolicy;
  state: ScheduleState;
  /** The next occurrence not yet decided on; null when the expression has no more. */
  nextAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What became of one occurrence: `claimed` (a node is starting it), `fired`, `failed` (it could
 * not start: `error`), or `skipped` (missed while down, under the `skip` policy).
 */
export const firingStates = ['claimed', 'fired', 'failed', 'skipped'] as const;
export type FiringState = (typeof firingStates)[number];

export interface ScheduleFiringRecord {
  scheduleId: string;
  /** The occurrence's time, as the expression gives it. */
  occurrence: number;
  state: FiringState;
  /** Earlier occurrences missed and not fired, decided on with this one. */
  missed: number;
  sessionId: string | null;
  error: string | null;
  /** When a node decided on it. */
  claimedAt: number;
  updatedAt: number;
}

export interface ScheduleStorage {
  /** `conflict` when the id is taken. */
  createSchedule(
    schedule: Omit<ScheduleRecord, 'state' | 'createdAt' | 'updatedAt'> & { now: number },
  ): Promise<ScheduleRecord>;
  getSchedule(id: string): Promise<ScheduleRecord | null>;
  /** In creation order; with `dueAt`, only active schedules whose `nextAt` is at or before it. */
  listSchedules(options?: { organization?: string; dueAt?: number }): Promise<ScheduleRecord[]>;
  /** Pauses or resumes, with the next occurrence to decide on. `not_found` when missing. */
  setScheduleState(options: {
    id: string;
    state: ScheduleState;
    nextAt: number | null;
    now: number;
  }): Promise<ScheduleRecord>;
  /** Removes the schedule and its firings; false when there was none. */
  removeSchedule(id: string): Promise<boolean>;
  /**
   * Decides on an occurrence, once across every node: records its firing as `state` (`claimed`
   * or `skipped`) and moves the schedule's `nextAt` on to `nextAt`, but only while the schedule is
   * active and its `nextAt` is still `expectNextAt` and no firing of that occurrence exists.
   * True for the one caller that did it; false (and no change) for every other.
   */
  claimOccurrence(options: {
    scheduleId: string;
    expectNextAt: number;
    occurrence: number;
    state: 'claimed' | 'skipped';
    missed: number;
    nextAt: number | null;
    now: number;
  }): Promise<boolean>;
  /** Records how a claimed firing ended. `not_found` when there is no such firing. */
  finishFiring(options: {
    scheduleId: string;
    occurrence: number;
    state: 'fired' | 'failed';
    sessionId: string | null;
    error: string | null;
    now: number;
  }): Promise<ScheduleFiringRecord>;
  /** Newest occurrence first; across schedules when `scheduleId` is not given. @default limit 100 */
  listFirings(options?: {
    scheduleId?: string;
    state?: FiringState;
    limit?: number;
  }): Promise<ScheduleFiringRecord[]>;
}
