import { ConflictError, NotFoundError } from '../../errors/agentd-error.js';
import type { ScheduleRecord, ScheduleStorage } from '../schedule-storage.js';
import { toFiringRecord, toScheduleRecord } from './automation-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Schedules and their firings on SQLite; the (schedule, occurrence) key decides who fires. */
export function sqliteSchedules(connection: SqliteConnection): ScheduleStorage {
  const find = (id: string): ScheduleRecord | null => {
    const row = connection.statement('SELECT * FROM schedules WHERE id = ?').get(id);
    return row === undefined ? null : toScheduleRecord(row);
  };
  const require = (id: string): ScheduleRecord => {
    const schedule = find(id);
    if (schedule === null) throw new NotFoundError(`schedule ${id} not found`, { scheduleId: id });
    return schedule;
  };
  return {
    async createSchedule(schedule) {
      return connection.write(() => {
        if (find(schedule.id) !== null)
          throw new ConflictError(`schedule ${schedule.id} exists`, { scheduleId: schedule.id });
        connection
          .statement(
            `INSERT INTO schedules (id, organization, cron, timezone, target, prompt, cwd, missed, state,
               next_at, created_at, updated_at)
             VALUES (@id, @organization, @cron, @timezone, @target, @prompt, @cwd, @missed, 'active',
               @nextAt, @now, @now)`,
          )
          .run({ ...schedule, target: JSON.stringify(schedule.target) });
        return require(schedule.id);
      });
    },

    async getSchedule(id) {
      return connection.read(() => find(id));
    },

    async listSchedules(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM schedules
             WHERE (@organization IS NULL OR organization = @organization)
               AND (@dueAt IS NULL OR (state = 'active' AND next_at IS NOT NULL AND next_at <= @dueAt))
             ORDER BY seq`,
          )
          .all({ organization: options.organization ?? null, dueAt: options.dueAt ?? null })
          .map(toScheduleRecord),
      );
    },

    async setScheduleState(options) {
      return connection.write(() => {
        require(options.id);
        connection
          .statement('UPDATE schedules SET state = ?, next_at = ?, updated_at = ? WHERE id = ?')
          .run(options.state, options.nextAt, options.now, options.id);
        return require(options.id);
      });
    },

    async removeSchedule(id) {
      return connection.write(() => {
        connection.statement('DELETE FROM schedule_firings WHERE schedule_id = ?').run(id);
        return connection.statement('DELETE FROM schedules WHERE id = ?').run(id).changes > 0;
      });
    },

    async claimOccurrence(options) {
      return connection.write(() => {
        const schedule = find(options.scheduleId);
        if (schedule === null || schedule.state !== 'active' || schedule.nextAt !== options.expectNextAt)
          return false;
        const inserted = connection
          .statement(
            `INSERT INTO schedule_firings (schedule_id, occurrence, state, missed, claimed_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (schedule_id, occurrence) DO NOTHING`,
          )
          .run(
            options.scheduleId,
            options.occurrence,
            options.state,
            options.missed,
            options.now,
            options.now,
          );
        if (inserted.changes === 0) return false;
        connection
          .statement('UPDATE schedules SET next_at = ?, updated_at = ? WHERE id = ?')
          .run(options.nextAt, options.now, options.scheduleId);
        return true;
      });
    },

    async finishFiring(options) {
      return connection.write(() => {
        const row = connection
          .statement(
            `UPDATE schedule_firings SET state = ?, session_id = ?, error = ?, updated_at = ?
             WHERE schedule_id = ? AND occurrence = ? RETURNING *`,
          )
          .get(
            options.state,
            options.sessionId,
            options.error,
            options.now,
            options.scheduleId,
            options.occurrence,
          );
        if (row === undefined)
          throw new NotFoundError(`schedule ${options.scheduleId} has no firing at ${options.occurrence}`);
        return toFiringRecord(row);
      });
    },

    async listFirings(options = {}) {
      return connection.read(() =>
        connection
          .statement(
            `SELECT * FROM schedule_firings
             WHERE (@scheduleId IS NULL OR schedule_id = @scheduleId) AND (@state IS NULL OR state = @state)
             ORDER BY occurrence DESC LIMIT @limit`,
          )
          .all({
            scheduleId: options.scheduleId ?? null,
            state: options.state ?? null,
            limit: Math.max(0, options.limit ?? 100),
          })
          .map(toFiringRecord),
      );
    },
  };
}
