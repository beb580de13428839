import { describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { type ContractContext, uniqueId } from './contract-context.js';

async function createTestSchedule(
  store: Store,
  overrides: { nextAt?: number | null; organization?: string } = {},
) {
  return store.createSchedule({
    id: uniqueId('schedule'),
    organization: overrides.organization ?? 'acme',
    cron: '0 9 * * 1-5',
    timezone: 'Europe/Berlin',
    target: { kind: 'role', role: 'reviewer' },
    prompt: 'Good morning',
    cwd: null,
    missed: 'skip',
    nextAt: overrides.nextAt === undefined ? 10_000 : overrides.nextAt,
    now: 1_000,
  });
}

export function describeScheduleContract(context: ContractContext): void {
  describe('schedules', () => {
    it('createSchedule: stores the schedule active; a taken id is a conflict; listSchedules filters', async () => {
      const store = context.store();
      const schedule = await createTestSchedule(store);
      expect(schedule).toMatchObject({
        organization: 'acme',
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Berlin',
        target: { kind: 'role', role: 'reviewer' },
        state: 'active',
        missed: 'skip',
        nextAt: 10_000,
        createdAt: 1_000,
      });
      expect(await store.getSchedule(schedule.id)).toEqual(schedule);
      await expect(
        store.createSchedule({ ...schedule, target: { kind: 'channel', channel: 'c' }, now: 2_000 }),
      ).rejects.toMatchObject({ code: 'conflict' });
      const later = await createTestSchedule(store, { nextAt: 50_000, organization: 'other' });
      expect((await store.listSchedules()).map((s) => s.id)).toEqual([schedule.id, later.id]);
      expect((await store.listSchedules({ organization: 'other' })).map((s) => s.id)).toEqual([later.id]);
      expect((await store.listSchedules({ dueAt: 20_000 })).map((s) => s.id)).toEqual([schedule.id]);
      await store.setScheduleState({ id: schedule.id, state: 'paused', nextAt: 10_000, now: 3_000 });
      expect(await store.listSchedules({ dueAt: 20_000 })).toEqual([]);
    });

    it('claimOccurrence: of racing claims of one occurrence exactly one wins, and nextAt moves on', async () => {
      const store = context.store();
      const schedule = await createTestSchedule(store);
      const claim = () =>
        store.claimOccurrence({
          scheduleId: schedule.id,
          expectNextAt: 10_000,
          occurrence: 10_000,
          state: 'claimed',
          missed: 0,
          nextAt: 20_000,
          now: 10_500,
        });
      const results = await Promise.all([claim(), claim(), claim(), claim()]);
      expect(results.filter(Boolean)).toHaveLength(1);
      // A claim made from a stale read (nextAt moved on) changes nothing.
      expect(await claim()).toBe(false);
      expect((await store.getSchedule(schedule.id))?.nextAt).toBe(20_000);
      const [firing] = await store.listFirings({ scheduleId: schedule.id });
      expect(firing).toMatchObject({ occurrence: 10_000, state: 'claimed', missed: 0, sessionId: null });
      const finished = await store.finishFiring({
        scheduleId: schedule.id,
        occurrence: 10_000,
        state: 'fired',
        sessionId: 'session-1',
        error: null,
        now: 11_000,
      });
      expect(finished).toMatchObject({ state: 'fired', sessionId: 'session-1', updatedAt: 11_000 });
      expect(await store.listFirings({ state: 'claimed' })).toEqual([]);
    });

    it('claimOccurrence: refused while paused; the same occurrence is never claimed twice', async () => {
      const store = context.store();
      const schedule = await createTestSchedule(store);
      await store.setScheduleState({ id: schedule.id, state: 'paused', nextAt: 10_000, now: 2_000 });
      const options = {
        scheduleId: schedule.id,
        expectNextAt: 10_000,
        occurrence: 10_000,
        state: 'skipped' as const,
        missed: 3,
        nextAt: 20_000,
        now: 10_500,
      };
      expect(await store.claimOccurrence(options)).toBe(false);
      await store.setScheduleState({ id: schedule.id, state: 'active', nextAt: 10_000, now: 2_000 });
      expect(await store.claimOccurrence(options)).toBe(true);
      // Moved back (a resume), the same occurrence still has its firing: not decided again.
      await store.setScheduleState({ id: schedule.id, state: 'active', nextAt: 10_000, now: 3_000 });
      expect(await store.claimOccurrence(options)).toBe(false);
      expect(await store.listFirings({ scheduleId: schedule.id })).toEqual([
        expect.objectContaining({ occurrence: 10_000, state: 'skipped', missed: 3 }),
      ]);
    });

    it('removeSchedule: removes the schedule and its firings', async () => {
      const store = context.store();
      const schedule = await createTestSchedule(store);
      await store.claimOccurrence({
        scheduleId: schedule.id,
        expectNextAt: 10_000,
        occurrence: 10_000,
        state: 'claimed',
        missed: 0,
        nextAt: null,
        now: 10_000,
      });
      expect(await store.removeSchedule(schedule.id)).toBe(true);
      expect(await store.getSchedule(schedule.id)).toBeNull();
      expect(await store.listFirings({ scheduleId: schedule.id })).toEqual([]);
      expect(await store.removeSchedule(schedule.id)).toBe(false);
      await expect(
        store.setScheduleState({ id: schedule.id, state: 'paused', nextAt: null, now: 1 }),
      ).rejects.toMatchObject({ code: 'not_found' });
    });
  });
}
