import { cpus, loadavg, totalmem } from 'node:os';

/** Where the figures came from, stored with every result. */
export function machine() {
  const processors = cpus();
  return {
    cpus: processors.length,
    cpuModel: processors[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    /** 1-minute load average when the run started: other work on the machine skews the figures. */
    loadAverage: Math.round(loadavg()[0]! * 100) / 100,
  };
}
