import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataPaths } from '../journal/data-dir.js';
import type { MonitorSpec } from './monitor-spec.js';

/** The runner's entry point: beside this file once built; from the TypeScript sources, the build's. */
const runnerEntry = import.meta.url.endsWith('.ts')
  ? fileURLToPath(new URL('../../dist/monitor/monitor-main.js', import.meta.url))
  : fileURLToPath(new URL('./monitor-main.js', import.meta.url));

/** Starts a monitor's runner, detached in its own process group: it survives this process. */
export function spawnMonitorRunner(options: {
  paths: DataPaths;
  env: Record<string, string | undefined>;
  spec: MonitorSpec;
}): number {
  const { paths, spec } = options;
  const log = openSync(join(paths.logs, `monitor-${spec.monitorId}.out`), 'a', 0o600);
  const child = spawn(process.execPath, [runnerEntry, paths.root, JSON.stringify(spec)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: options.env,
    cwd: paths.root,
  });
  child.unref();
  if (child.pid === undefined) throw new Error('could not start a monitor process');
  return child.pid;
}
