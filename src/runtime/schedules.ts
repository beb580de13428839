import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { InvalidInputError, NotFoundError } from '../errors/index.js';
import { journalEntry } from '../journal/journal-event.js';
import {
  type MissedPolicy,
  missedPolicies,
  type ScheduleFiringRecord,
  type ScheduleRecord,
  type ScheduleTarget,
} from '../store/schedule-storage.js';
import { type Access, resources } from './access.js';
import { CronSchedule } from './cron.js';
import type { Roles } from './roles.js';
import type { Runtime } from './runtime.js';
import {
  type ActorOptions,
  defaultOrganization,
  defaultProject,
  ownerPrincipal,
  type RuntimeContext,
} from './runtime-context.js';

export interface AddScheduleOptions extends ActorOptions {
  /** Five fields, such as `0 9 * * 1-5`. */
  cron: string;
  /** @default 'UTC' */
  timezone?: string;
  /** Start a new session of this role at each occurrence; give this or `channel`. */
  role?: string;
  /** Send to this channel's session at each occurrence; give this or `role`. */
  channel?: string;
  prompt: string;
  /** @default 'default' */
  organization?: string;
  /** The working directory of the sessions it starts. @default the runtime's */
  cwd?: string;
  /** @default 'skip' */
  missed?: MissedPolicy;
  /** @default a new UUID */
  id?: string;
}

export interface ScheduleDetails {
  schedule: ScheduleRecord;
  /** Newest first. */
  firings: ScheduleFiringRecord[];
}

/**
 * An occurrence decided on within this long of its time is on time; later, it was missed (the
 * nodes were down, or busy) and the schedule's missed policy applies.
 */
export const onTimeMs = 60_000;
/** A firing claimed this long ago and still not finished: its node died; another finishes it. */
const staleClaimMs = 60_000;

/**
 * Schedules: a cron expression that starts a session of a role, or sends to a channel, at each
 * occurrence. Every node ticks; the store's claim of (schedule, occurrence) decides which node
 * fires it, once (docs/decisions/0160-schedule-firing.md). Firings act as the owner: whoever adds
 * a schedule needs `role.trigger` on its role or `agent.trigger` on the channel's project then.
 */
export class Schedules {
  constructor(
    private readonly runtime: Runtime,
    private readonly context: RuntimeContext,
    private readonly access: Access,
    private readonly roles: Roles,
    private readonly clock: () => number,
  ) {}

  async add(options: AddScheduleOptions): Promise<ScheduleRecord> {
    const timezone = options.timezone ?? 'UTC';
    const cron = CronSchedule.parse(options.cron, timezone);
    if (typeof options.prompt !== 'string' || options.prompt.trim() === '')
      throw new InvalidInputError('prompt must not be empty');
    const missed = options.missed ?? 'skip';
    if (!missedPolicies.includes(missed))
      throw new InvalidInputError(`missed must be one of ${missedPolicies.join(', ')}`, { missed });
    const organization = options.organization ?? defaultOrganization;
    const actor = options.actor ?? ownerPrincipal;
    let target: ScheduleTarget;
    if ((options.role === undefined) === (options.channel === undefined))
      throw new InvalidInputError('a schedule targets either a role or a channel');
    if (options.role !== undefined) {
      const role = await this.roles.get(options.role, { organization });
      await this.access.require(actor, 'role.trigger', resources.role(organization, role.name));
      target = { kind: 'role', role: role.name };
    } else {
      const channel = await this.context.store.getChannel(options.channel!);
      const project = channel?.project ?? defaultProject;
      await this.access.require(
        actor,
        'agent.trigger',
        resources.project(channel?.organization ?? organization, project),
      );
      target = { kind: 'channel', channel: options.channel! };
    }
    const now = this.clock();
    return this.context.store.createSchedule({
      id: options.id ?? randomUUID(),
      organization,
      cron: options.cron.trim(),
      timezone,
      target,
      prompt: options.prompt,
      cwd: options.cwd === undefined ? null : resolve(options.cwd),
      missed,
      nextAt: cron.next(now),
      now,
    });
  }

  async list(options: { organization?: string } = {}): Promise<ScheduleRecord[]> {
    return this.context.store.listSchedules(options);
  }

  async get(id: string, options: { limit?: number } = {}): Promise<ScheduleDetails> {
    const schedule = await this.require(id);
    return {
      schedule,
      firings: await this.context.store.listFirings({ scheduleId: id, limit: options.limit ?? 20 }),
    };
  }

  /** No occurrence fires while paused, and none of them counts as missed. */
  async pause(id: string, options: ActorOptions = {}): Promise<ScheduleRecord> {
    const schedule = await this.requireChange(id, options);
    return this.context.store.setScheduleState({
      id,
      state: 'paused',
      nextAt: schedule.nextAt,
      now: this.clock(),
    });
  }

  /** Goes on from the next occurrence after now. */
  async resume(id: string, options: ActorOptions = {}): Promise<ScheduleRecord> {
    const schedule = await this.requireChange(id, options);
    const now = this.clock();
    const nextAt = CronSchedule.parse(schedule.cron, schedule.timezone).next(now);
    return this.context.store.setScheduleState({ id, state: 'active', nextAt, now });
  }

  async remove(id: string, options: ActorOptions = {}): Promise<void> {
    await this.requireChange(id, options);
    await this.context.store.removeSchedule(id);
  }

  /**
   * Decides on every due occurrence at `now` and fires what it claimed; also finishes firings
   * whose node died after claiming them. Returns the firings this call made.
   */
  async tick(now = this.clock()): Promise<ScheduleFiringRecord[]> {
    const fired: ScheduleFiringRecord[] = [];
    for (const schedule of await this.context.store.listSchedules({ dueAt: now })) {
      const firing = await this.decide(schedule, now);
      if (firing) fired.push(firing);
    }
    for (const stale of await this.context.store.listFirings({ state: 'claimed' })) {
      if (stale.claimedAt > now - staleClaimMs) continue;
      const schedule = await this.context.store.getSchedule(stale.scheduleId);
      if (schedule) fired.push(await this.fire(schedule, stale, now));
    }
    return fired;
  }

  private async decide(schedule: ScheduleRecord, now: number): Promise<ScheduleFiringRecord | null> {
    const expectNextAt = schedule.nextAt!;
    const cron = CronSchedule.parse(schedule.cron, schedule.timezone);
    const latest = cron.latest(now) ?? expectNextAt;
    const occurrence = Math.max(latest, expectNextAt);
    const missed = cron.count(expectNextAt, occurrence);
    const late = now - occurrence > onTimeMs;
    const state = late && schedule.missed === 'skip' ? 'skipped' : 'claimed';
    const claimed = await this.context.store.claimOccurrence({
      scheduleId: schedule.id,
      expectNextAt,
      occurrence,
      state,
      missed,
      nextAt: cron.next(Math.max(now, occurrence)),
      now,
    });
    if (!claimed || state === 'skipped') return null;
    return this.fire(
      schedule,
      {
        scheduleId: schedule.id,
        occurrence,
        state,
        missed,
        sessionId: null,
        error: null,
        claimedAt: now,
        updatedAt: now,
      },
      now,
    );
  }

  /** Starts or sends the firing's input; a retry of the same occurrence finds the same session and input. */
  private async fire(
    schedule: ScheduleRecord,
    firing: ScheduleFiringRecord,
    now: number,
  ): Promise<ScheduleFiringRecord> {
    const messageId = `schedule:${schedule.id}:${firing.occurrence}`;
    const fired = journalEntry({
      type: 'schedule.fired',
      scheduleId: schedule.id,
      occurrence: new Date(firing.occurrence).toISOString(),
      late: now - firing.occurrence > onTimeMs,
      missed: firing.missed,
      messageId,
    });
    try {
      let sessionId: string;
      if (schedule.target.kind === 'role') {
        const { session } = await this.runtime.createSession({
          organization: schedule.organization,
          role: schedule.target.role,
          launchId: messageId,
          requireCredentials: true,
          title: `schedule ${schedule.id}`,
          ...(schedule.cwd ? { cwd: schedule.cwd } : {}),
        });
        sessionId = session.id;
      } else {
        const session = await this.runtime.channels.session(schedule.target.channel, {
          organization: schedule.organization,
          ...(schedule.cwd ? { cwd: schedule.cwd } : {}),
        });
        sessionId = session.id;
      }
      if (!(await this.context.store.getInput(sessionId, messageId)))
        await this.context.store.appendEvents(sessionId, [fired], { now: Date.now() });
      await this.runtime.send(sessionId, { text: schedule.prompt, messageId });
      return await this.context.store.finishFiring({
        scheduleId: schedule.id,
        occurrence: firing.occurrence,
        state: 'fired',
        sessionId,
        error: null,
        now: this.clock(),
      });
    } catch (error) {
      return this.context.store.finishFiring({
        scheduleId: schedule.id,
        occurrence: firing.occurrence,
        state: 'failed',
        sessionId: null,
        error: error instanceof Error ? error.message : String(error),
        now: this.clock(),
      });
    }
  }

  private async require(id: string): Promise<ScheduleRecord> {
    const schedule = await this.context.store.getSchedule(id);
    if (!schedule) throw new NotFoundError(`schedule ${id} not found`, { scheduleId: id });
    return schedule;
  }

  /** Changing a schedule takes what adding it took. */
  private async requireChange(id: string, options: ActorOptions): Promise<ScheduleRecord> {
    const schedule = await this.require(id);
    const actor = options.actor ?? ownerPrincipal;
    if (schedule.target.kind === 'role')
      await this.access.require(
        actor,
        'role.trigger',
        resources.role(schedule.organization, schedule.target.role),
      );
    else {
      const channel = await this.context.store.getChannel(schedule.target.channel);
      await this.access.require(
        actor,
        'agent.trigger',
        resources.project(channel?.organization ?? schedule.organization, channel?.project ?? defaultProject),
      );
    }
    return schedule;
  }
}

/** Ticks the schedules every `tickMs` until closed. */
export function startScheduleTicker(options: {
  schedules: Schedules;
  /** @default 1000 */
  tickMs?: number;
  log?: (line: string) => void;
}): { close(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = options.schedules
      .tick()
      .catch((error: unknown) => options.log?.(`schedules: ${String(error)}`))
      .finally(() => {
        busy = false;
      });
  }, options.tickMs ?? 1000);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
