import { Cron } from 'croner';
import { InvalidInputError } from '../errors/index.js';

/** A five-field cron expression read in an IANA time zone (croner does the calendar and DST). */
export class CronSchedule {
  readonly #cron: Cron;

  private constructor(cron: Cron) {
    this.#cron = cron;
  }

  /** `invalid_input` for anything but five fields croner accepts, or an unknown time zone. */
  static parse(expression: unknown, timezone: unknown): CronSchedule {
    if (typeof expression !== 'string' || expression.trim().split(/\s+/).length !== 5)
      throw new InvalidInputError(
        'cron must have five fields: minute hour day-of-month month day-of-week, such as "0 9 * * 1-5"',
        { cron: expression },
      );
    if (typeof timezone !== 'string' || !isTimeZone(timezone))
      throw new InvalidInputError(
        `unknown time zone ${String(timezone)}: use an IANA name such as Europe/Berlin`,
        {
          timezone,
        },
      );
    try {
      return new CronSchedule(new Cron(expression.trim(), { timezone, paused: true, mode: '5-part' }));
    } catch (error) {
      throw new InvalidInputError(
        `cron ${JSON.stringify(expression)} is not valid: ${(error as Error).message}`,
        {
          cron: expression,
        },
      );
    }
  }

  /** The first occurrence strictly after `after`, or null when there is none. */
  next(after: number): number | null {
    return this.#cron.nextRun(new Date(after))?.getTime() ?? null;
  }

  /** The latest occurrence at or before `at`, or null. */
  latest(at: number): number | null {
    return this.#cron.previousRuns(1, new Date(at + 1))[0]?.getTime() ?? null;
  }

  /** How many occurrences lie in [from, to), counting at most `cap`. */
  count(from: number, to: number, cap = 10_000): number {
    let count = 0;
    for (let at = this.next(from - 1); at !== null && at < to && count < cap; at = this.next(at)) count += 1;
    return count;
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
