/** What a monitor's runner is started with (its one argument, as JSON). */
export interface MonitorSpec {
  sessionId: string;
  monitorId: string;
  command: string;
  /** The session's working directory: the command runs there. */
  cwd: string;
  persistent: boolean;
  wake: boolean;
  /** How long the monitor may run; null for none (a persistent monitor). */
  deadlineMs: number | null;
  permissionMode: string;
  /** Bytes of stdout after which the monitor stops with `output_limit`. */
  outputLimit: number;
  /** Lines that arrive within this many ms of the first of them are one observation. */
  batchMs: number;
}

/** The default deadline of a monitor that is not persistent: 10 minutes. */
export const defaultMonitorDeadlineMs = 10 * 60_000;
/** 1 MiB of stdout. */
export const defaultMonitorOutputLimit = 1024 * 1024;
export const defaultMonitorBatchMs = 100;
