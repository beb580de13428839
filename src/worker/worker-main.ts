/**
 * The worker process: `node worker-main.js DATA_DIR SESSION_ID EXECUTION_ID`. Started detached by
 * the supervisor, in its own process group, with its output in log files; it outlives its parent.
 *
 * `node worker-main.js DATA_DIR --warm NAME` is a warm pool entry (src/runtime/warm-pool.ts): started
 * with an IPC channel, it is told the launch it is kept for, boots that session's `claude` (the SDK's
 * `startup()`) and waits to be given an execution; then it runs as any worker and leaves the channel.
 * A spare entry is told no launch: it loads the SDK and waits, for any session's execution.
 */
import { appendFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentBackend } from '../backends/agent-backend.js';
import { ClaudeBackend } from '../backends/claude/claude-backend.js';
import { loadSdk } from '../backends/claude/load-sdk.js';
import { removeResumeDirs } from '../backends/claude/resume-dirs.js';
import { createBackend } from '../backends/create-backend.js';
import { backendOf, sessionSpecOf } from '../backends/session-spec.js';
import { type DataPaths, dataPaths } from '../journal/data-dir.js';
import { handoffSocketPath } from '../journal/handoff.js';
import { idleTimeoutReason } from '../journal/journal-event.js';
import { openStore } from '../journal/open-store.js';
import { toSdkSessionStore } from '../store/session-store-adapter.js';
import type { SessionRecord, Store } from '../store/store.js';
import { tracingEnabled } from '../telemetry/tracing-enabled.js';
import { listenForHandoffs } from './handoff-server.js';
import { runExecution, workerExitCodes } from './run-execution.js';
import { launchConfig, sessionLaunch } from './session-launch.js';
import { type WarmAssignment, type WarmLaunch, waitForAssignment } from './warm-entry.js';
import { defaultFreezeIdleAfterMs } from './worker.js';

/**
 * How a worker opens its store. Signalled by the runtime on its host, it does not watch other
 * processes' SQLite commits. Its writes wait up to 30 s for SQLite's write lock, not the API's 5 s:
 * no client waits on them, and a worker whose write gives up fails its execution mid-turn (seen
 * with 100 sessions taking turns on 2 cores). A worker waiting that long may let its lease lapse;
 * a takeover then fences its writes, as for any worker that stalled.
 */
const workerStoreOptions = { watchOthers: false, busyTimeoutMs: 30_000 };

/** A positive number from the environment, or nothing. */
function numberFromEnv(name: string): number | undefined {
  const value = Number(process.env[name] ?? '');
  return process.env[name] && Number.isFinite(value) ? value : undefined;
}

type DemoModel = { env: Record<string, string>; close(): Promise<void> } | null;

/** Only an offline session's worker needs the demo model (and its HTTP server): loaded then. */
async function startDemo(session: { provider: string; cwd: string }): Promise<DemoModel> {
  if (session.provider !== 'offline') return null;
  const { startDemoModelFor } = await import('../testing/demo-model.js');
  return startDemoModelFor(session);
}

/** Tracing and its OpenTelemetry modules, loaded only when it is on. */
async function startWorkerTracing() {
  if (!tracingEnabled(process.env)) return null;
  const { startTracing } = await import('../telemetry/tracing.js');
  return startTracing(process.env, 'worker');
}

async function runWorker(options: {
  store: Store;
  paths: DataPaths;
  sessionId: string;
  executionId: string;
  /** The warm entry's prepared backend; otherwise the session's own. */
  backend?: AgentBackend;
  /** The demo model a warm entry started already. */
  demo?: DemoModel;
  /** The session as the runtime that assigned this spare read it (`WarmAssignment.session`). */
  session?: SessionRecord;
}): Promise<number> {
  const { store, paths, sessionId, executionId, backend } = options;
  const logFile = join(paths.logs, `${executionId}.log`);
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  const idleTimeoutMs = numberFromEnv('AGENTD_IDLE_TIMEOUT_MS');
  const leaseTtlMs = numberFromEnv('AGENTD_LEASE_TTL_MS');
  const freezeIdleAfterMs = numberFromEnv('AGENTD_FREEZE_IDLE_MS');
  const tracing = await startWorkerTracing();
  // An offline session's worker brings its own demo model: the model lives exactly as long as it.
  // A spare is told the session, and boots a woken session's claude before it reads the store; the
  // execution reads the session again, and keeps that claude only for the very same config.
  const session = options.session ?? (await store.getSession(sessionId));
  const demo = options.demo !== undefined ? options.demo : session ? await startDemo(session) : null;
  const woken = !backend && session ? await prepareWake({ store, paths, session, demo }) : undefined;
  const execution = runExecution({
    store,
    backend: backend ?? woken ?? createBackend(session ? backendOf(session.config) : 'claude'),
    sessionId,
    executionId,
    ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
    ...(leaseTtlMs !== undefined ? { leaseTtlMs } : {}),
    ...(freezeIdleAfterMs !== undefined ? { freezeIdleAfterMs } : {}),
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
  // On SQLite the runtime on this host hands new inputs over instead (decision 0132).
  const socketPath = store.kind === 'sqlite' ? handoffSocketPath(paths, executionId) : null;
  const handoffs = socketPath
    ? listenForHandoffs({ path: socketPath, sessionId, executionId, handOff: execution.handOff, log })
    : null;
  // A stop signal ends the worker the same way a stop request does.
  process.on('SIGTERM', () => {
    void store.updateExecution(executionId, { state: 'stopping', now: Date.now() }).catch(() => {});
  });
  try {
    return await execution.exit;
  } finally {
    for (const stop of unwatch) stop?.();
    (await handoffs)?.close();
    await tracing?.shutdown().catch((error: unknown) => log(`tracing: ${String(error)}`));
    await store.close();
    await demo?.close();
  }
}

/**
 * A hibernated session's next worker boots its `claude`, on the native session to resume, before it
 * takes the lease and journals its start, so that the boot overlaps them instead of following them
 * (decision 0137). Only for a Claude session that left cleanly: the newest worker event of its
 * journal is its last worker leaving after the idle timeout, so no worker has touched its
 * transcript since (no deferred tool use to mark, nothing half done), and no worker that loses a
 * race for the lease ever starts an agent. The worker's own start waits for the spawn, so that its
 * reads do not delay the SDK's (0176).
 * The execution keeps this `claude` only if it prepares the very same config; a rollback or seed
 * tools make it start its own.
 */
async function prepareWake(options: {
  store: Store;
  paths: DataPaths;
  session: SessionRecord;
  demo: DemoModel;
}): Promise<AgentBackend | undefined> {
  const { store, paths, session, demo } = options;
  if (backendOf(session.config) !== 'claude' || !session.nativeSessionId) return undefined;
  if (!(await leftAfterIdleTimeout(store, session.id))) return undefined;
  const added = await sessionLaunch({ store, session, env: process.env, paths });
  const config = launchConfig(session.config as unknown as Parameters<typeof launchConfig>[0], added);
  const backend = new ClaudeBackend();
  backend.prepare({
    spec: sessionSpecOf({ ...config, resume: session.nativeSessionId, env: { ...config.env, ...demo?.env } }),
    sessionStore: toSdkSessionStore(store),
  });
  await backend.spawned();
  return backend;
}

/** Whether the newest worker event among the session's last events is a worker leaving idle. */
async function leftAfterIdleTimeout(store: Store, sessionId: string): Promise<boolean> {
  const last = await store.lastCursor(sessionId);
  const recent = await store.readEvents(sessionId, { after: Math.max(0, last - 50), limit: 50 });
  const newest = recent.findLast((event) => event.type.startsWith('execution.'));
  return (
    newest?.type === 'execution.stopped' &&
    (newest.data as { reason?: unknown } | null)?.reason === idleTimeoutReason
  );
}

/**
 * A warm entry: boots `claude` for `launch` exactly as an execution of a new session with that
 * launch would (the same launch function, config and transcript store), then waits. Given an
 * execution, it runs it: the execution prepares its own config again and keeps this `claude` only
 * when the two are equal. A spare entry (no launch) only loads the SDK: given any execution, it
 * runs it as a worker started for it would, without that worker's start. Its runtime gone before
 * that, an entry exits, and its `claude` with it.
 */
async function runWarm(dataDir: string, name: string | undefined): Promise<number> {
  const paths = dataPaths(dataDir);
  const store = await openStore(paths, process.env, workerStoreOptions);
  const backend = new ClaudeBackend();
  let demo: DemoModel = null;
  let prepared = false;
  const assignment: WarmAssignment | null = await waitForAssignment(async (launch: WarmLaunch | null) => {
    if (!launch) {
      await loadSdk();
      return;
    }
    prepared = true;
    demo = await startDemo(launch);
    const added = await sessionLaunch({ store, session: launch, env: process.env, paths });
    const config = launchConfig(launchConfigOf(launch), added);
    backend.prepare({
      spec: sessionSpecOf({ ...config, env: { ...config.env, ...demo?.env } }),
      sessionStore: toSdkSessionStore(store),
      freezeIdleAfterMs: numberFromEnv('AGENTD_FREEZE_IDLE_MS') ?? defaultFreezeIdleAfterMs,
    });
  });
  if (!assignment) {
    backend.discardPrepared();
    await store.close();
    await (demo as DemoModel)?.close();
    return workerExitCodes.stopped;
  }
  // The entry's captured output becomes the execution's, as a worker started for it writes it.
  if (name) renameLog(paths, `warm-${name}.out`, `${assignment.executionId}.out`);
  return runWorker({ store, paths, ...assignment, ...(prepared ? { backend, demo } : {}) });
}

/** Renames a log file in the data dir; the open descriptors write on into it under its new name. */
function renameLog(paths: DataPaths, from: string, to: string): void {
  try {
    renameSync(join(paths.logs, from), join(paths.logs, to));
  } catch {
    // Only the file's name is lost: the output still goes to the old one.
  }
}

/** The stored config of a warm launch, as an execution reads its session's. */
function launchConfigOf(launch: WarmLaunch) {
  return launch.config as unknown as Parameters<typeof launchConfig>[0];
}

async function main(): Promise<number> {
  const [dataDir, sessionId, executionId] = process.argv.slice(2);
  if (dataDir && sessionId === '--warm') return runWarm(dataDir, executionId);
  if (!dataDir || !sessionId || !executionId) {
    process.stderr.write('usage: worker-main DATA_DIR SESSION_ID EXECUTION_ID\n');
    return workerExitCodes.failed;
  }
  const paths = dataPaths(dataDir);
  const store = await openStore(paths, process.env, workerStoreOptions);
  return runWorker({ store, paths, sessionId, executionId });
}

main().then(
  (code) => {
    removeResumeDirs();
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(
      `agentd worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    removeResumeDirs();
    process.exit(workerExitCodes.failed);
  },
);
