import type { JournalRecordOf } from '../journal/journal-event.js';

export type MonitorRecord = JournalRecordOf<
  'monitor.started' | 'monitor.observation' | 'monitor.stop_requested' | 'monitor.stopped'
>;

/** A monitor's journal record in one line, as `agentd events` and `agentd monitor events` print it. */
export function monitorEventLine(record: MonitorRecord): string {
  const id = record.data.monitorId;
  switch (record.type) {
    case 'monitor.started':
      return `monitor ${id} started: ${record.data.command}${record.data.persistent ? ' (persistent)' : ''}`;
    case 'monitor.observation':
      return record.data.lines.map((line) => `monitor ${id}: ${line}`).join('\n');
    case 'monitor.stop_requested':
      return `monitor ${id} asked to stop (${record.data.reason})`;
    case 'monitor.stopped': {
      const how =
        record.data.exitCode !== null
          ? `exit code ${record.data.exitCode}`
          : record.data.signal
            ? `signal ${record.data.signal}`
            : 'no exit code';
      return `monitor ${id} stopped: ${record.data.reason}, ${how}`;
    }
  }
}
