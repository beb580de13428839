import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ScheduleRecord, ScheduleStorage } from '../schedule-storage.js';
import { toFiringRecord, toScheduleRecord } from '../sqlite/automation-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

async function find(executor: PostgresExecutor, id: string, lock = ''): Promise<ScheduleRecord | null> {
  const row = await executor.row(`SELECT * FROM schedules WHERE id = $1 ${lock}`, [id]);
  return row === undefined ? null : toScheduleRecord(row);
}

async function require(executor: PostgresExecutor, id: string): Promise<ScheduleRecord> {
  const schedule = await find(executor, id);
  if (schedule === null) throw new NotFoundError(`schedule ${id} not found`, { scheduleId: id });
  return schedule;
}

/**
 * Schedules and their firings on PostgreSQL. Of nodes deciding on one occurrence, the one whose
 * transaction locks the schedule row first and inserts the (schedule, occurrence) firing wins; the
 * others find `next_at` moved on (or the firing there) and do nothing.
 */
export function postgresSchedules(connection: PostgresConnection): ScheduleStorage {
  return {
    async createSchedule(schedule) {
      return connection.write(async (executor) => {
        const inserted = await executor.run(
          `INSERT INTO schedules (id, organization, cron, timezone, target, prompt, cwd, missed, state,
             next_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9, $10, $10) ON CONFLICT (id) DO NOTHING`,
          [
            schedule.id,
            schedule.organization,
            schedule.cron,
            schedule.timezone,
            JSON.stringify(schedule.target),
            schedule.prompt,
            schedule.cwd,
            schedule.missed,
            schedule.nextAt,
            schedule.now,
          ],
        );
        if (inserted === 0)
          throw new ConflictError(`schedule ${schedule.id} exists`, { scheduleId: schedule.id });
        return require(executor, schedule.id);
      });
    },

    async getSchedule(id) {
      return connection.read((executor) => find(executor, id));
    },

    async listSchedules(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM schedules
             WHERE ($1::text IS NULL OR organization = $1)
               AND ($2::bigint IS NULL OR (state = 'active' AND next_at IS NOT NULL AND next_at <= $2))
             ORDER BY seq`,
            [options.organization ?? null, options.dueAt ?? null],
          )
        ).map(toScheduleRecord),
      );
    },

    async setScheduleState(options) {
      return connection.write(async (executor) => {
        const changed = await executor.run(
          'UPDATE schedules SET state = $2, next_at = $3, updated_at = $4 WHERE id = $1',
          [options.id, options.state, options.nextAt, options.now],
        );
        if (changed === 0)
          throw new NotFoundError(`schedule ${options.id} not found`, { scheduleId: options.id });
        return require(executor, options.id);
      });
    },

    async removeSchedule(id) {
      return connection.write(async (executor) => {
        await executor.run('DELETE FROM schedule_firings WHERE schedule_id = $1', [id]);
        return (await executor.run('DELETE FROM schedules WHERE id = $1', [id])) > 0;
      });
    },

    async claimOccurrence(options) {
      return connection.write(async (executor) => {
        const schedule = await find(executor, options.scheduleId, 'FOR UPDATE');
        if (schedule === null || schedule.state !== 'active' || schedule.nextAt !== options.expectNextAt)
          return false;
        const inserted = await executor.run(
          `INSERT INTO schedule_firings (schedule_id, occurrence, state, missed, claimed_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (schedule_id, occurrence) DO NOTHING`,
          [options.scheduleId, options.occurrence, options.state, options.missed, options.now],
        );
        if (inserted === 0) return false;
        await executor.run('UPDATE schedules SET next_at = $2, updated_at = $3 WHERE id = $1', [
          options.scheduleId,
          options.nextAt,
          options.now,
        ]);
        return true;
      });
    },

    async finishFiring(options) {
      return connection.write(async (executor) => {
        const row = await executor.row(
          `UPDATE schedule_firings SET state = $3, session_id = $4, error = $5, updated_at = $6
           WHERE schedule_id = $1 AND occurrence = $2 RETURNING *`,
          [
            options.scheduleId,
            options.occurrence,
            options.state,
            options.sessionId,
            options.error,
            options.now,
          ],
        );
        if (row === undefined)
          throw new NotFoundError(`schedule ${options.scheduleId} has no firing at ${options.occurrence}`);
        return toFiringRecord(row);
      });
    },

    async listFirings(options = {}) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM schedule_firings
             WHERE ($1::text IS NULL OR schedule_id = $1) AND ($2::text IS NULL OR state = $2)
             ORDER BY occurrence DESC LIMIT $3`,
            [options.scheduleId ?? null, options.state ?? null, Math.max(0, options.limit ?? 100)],
          )
        ).map(toFiringRecord),
      );
    },
  };
}
