/**
 * The worker process: `node worker-main.js DATA_DIR SESSION_ID EXECUTION_ID`. Started detached by
 * the supervisor, in its own process group, with its output in log files; it outlives its parent.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBackend } from '../backends/create-backend.js';
import { backendOf } from '../backends/session-spec.js';
import { dataPaths } from '../journal/data-dir.js';
import { openStore } from '../journal/open-store.js';
import { startTracing } from '../telemetry/tracing.js';
import { startDemoModelFor } from '../testing/demo-model.js';
import { runExecution, workerExitCodes } from './run-execution.js';
import { sessionLaunch } from './session-launch.js';

/** A positive number from the environment, or nothing. */
function numberFromEnv(name: string): number | undefined {
  const value = Number(process.env[name] ?? '');
  return process.env[name] && Number.isFinite(value) ? value : undefined;
}

async function main(): Promise<number> {
  const [dataDir, sessionId, executionId] = process.argv.slice(2);
  if (!dataDir || !sessionId || !executionId) {
    process.stderr.write('usage: worker-main DATA_DIR SESSION_ID EXECUTION_ID\n');
    return workerExitCodes.failed;
  }
  const paths = dataPaths(dataDir);
  const logFile = join(paths.logs, `${executionId}.log`);
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  const store = await openStore(paths, process.env);
  const idleTimeoutMs = numberFromEnv('AGENTD_IDLE_TIMEOUT_MS');
  const leaseTtlMs = numberFromEnv('AGENTD_LEASE_TTL_MS');
  const tracing = startTracing(process.env, 'worker');
  // An offline session's worker brings its own demo model: the model lives exactly as long as it.
  const session = await store.getSession(sessionId);
  const demo = session ? await startDemoModelFor(session) : null;
  const execution = runExecution({
    store,
    backend: createBackend(session ? backendOf(session.config) : 'claude'),
    sessionId,
    executionId,
    ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
    ...(leaseTtlMs !== undefined ? { leaseTtlMs } : {}),
    tracing,
    log,
    ...(demo ? { env: demo.env } : {}),
    // The supervisor started this process with the runtime's environment: the secrets are read here.
    launch: (started) => sessionLaunch({ store, session: started, env: process.env, paths }),
  });
  // The runtime on this host signals a new input or answer, so the worker need not wait for its poll;
  // the store's change feed does the same for any node's runtime (LISTEN/NOTIFY on PostgreSQL).
  process.on('SIGUSR2', () => execution.wake());
  const wakeOn = (changed: string | null) => {
    if (changed === null || changed === sessionId) execution.wake();
  };
  const unwatch = [store.changes?.watch('inputs', wakeOn), store.changes?.watch('answers', wakeOn)];
  // A stop signal ends the worker the same way a stop request does.
  process.on('SIGTERM', () => {
    void store.updateExecution(executionId, { state: 'stopping', now: Date.now() }).catch(() => {});
  });
  try {
    return await execution.exit;
  } finally {
    for (const stop of unwatch) stop?.();
    await tracing?.shutdown().catch((error: unknown) => log(`tracing: ${String(error)}`));
    await store.close();
    await demo?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `agentd worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(workerExitCodes.failed);
  },
);
