import type { JournalRecord, JournalRecordOf, SeedEvent } from '../journal/journal-event.js';

export type SeedRecord = JournalRecordOf<SeedEvent['type']>;

export function isSeedRecord(record: JournalRecord): record is SeedRecord {
  return record.type.startsWith('seed.');
}

/** The first line of a text, trimmed, at most `max` characters. */
export function firstLineOf(text: string, max = 100): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A seed event in one plain line (no escape codes), as `agentd events` and a piped `seed run` print it. */
export function seedEventLine(record: SeedRecord): string {
  switch (record.type) {
    case 'seed.started':
      return `seed: ${firstLineOf(record.data.seed.goal)} (${plural(record.data.seed.criteria.length, 'criterion', 'criteria')})`;
    case 'seed.iteration':
      return `iteration ${record.data.iteration}${record.data.failing.length ? ` (again: ${record.data.failing.join(', ')})` : ''}`;
    case 'seed.criterion':
      return `criterion ${record.data.criterionId}: agent reports ${record.data.state}${record.data.evidence ? ` (${firstLineOf(record.data.evidence)})` : ''}`;
    case 'seed.check': {
      const { criterionId, passed, exitCode, expected, timedOut } = record.data;
      const how = timedOut ? 'timed out' : `exit ${exitCode ?? 'signal'}, expected ${expected}`;
      return `check ${criterionId}: ${passed ? 'passed' : 'failed'} (${how})`;
    }
    case 'seed.finished':
      return `seed ${record.data.outcome}: ${record.data.reason}`;
  }
}

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
