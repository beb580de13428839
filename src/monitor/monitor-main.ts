/**
 * A monitor's runner process: `node monitor-main.js DATA_DIR SPEC_JSON`. Started detached by the
 * runtime, in its own process group, with its own log; it outlives the process that started it.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataPaths } from '../journal/data-dir.js';
import { openStore } from '../journal/open-store.js';
import type { Runtime } from '../runtime/runtime.js';
import { Supervisor } from '../runtime/supervisor.js';
import { MonitorRunner } from './monitor-runner.js';
import type { MonitorSpec } from './monitor-spec.js';

/** Not for the command: the provider's secrets and agentd's own settings stay with agentd. */
const withheld = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'AGENTD_STORE_URL'];

async function main(): Promise<number> {
  const [dataDir, specJson] = process.argv.slice(2);
  if (!dataDir || !specJson) {
    process.stderr.write('usage: monitor-main DATA_DIR SPEC_JSON\n');
    return 1;
  }
  const spec = JSON.parse(specJson) as MonitorSpec;
  const paths = dataPaths(dataDir);
  const logFile = join(paths.logs, `monitor-${spec.monitorId}.log`);
  const log = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
  const store = await openStore(paths, process.env);
  const supervisor = new Supervisor({ store, paths });
  // A runtime only for `--wake`: starting a worker takes what the runtime knows (providers, budgets).
  let runtime: Promise<Runtime> | undefined;
  const wake = async () => {
    runtime ??= import('../runtime/runtime.js').then(({ createRuntime }) =>
      createRuntime({ dataDir, env: process.env }),
    );
    await (await runtime).monitors.wake(spec.sessionId);
  };
  const runner = new MonitorRunner({
    store,
    spec,
    stderrLog: join(paths.logs, `monitor-${spec.monitorId}.err`),
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !withheld.includes(name))),
    ...(spec.wake ? { wake } : {}),
    // A quiet worker naps for a minute: woken, it takes the output now (as the runtime wakes it for an input).
    journaled: async () => {
      const executions = await store.listExecutions(spec.sessionId);
      for (const execution of executions) supervisor.nudge(execution);
    },
    log,
  });
  process.on('SIGTERM', () => runner.requestStop('stopped'));
  process.on('SIGINT', () => runner.requestStop('stopped'));
  // The runtime journaled a stop request: read it now (it says why).
  process.on('SIGUSR2', () => runner.nudge());
  try {
    return await runner.run();
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await (await runtime)?.close().catch(() => {});
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `agentd monitor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
