/**
 * The IPC protocol between a warm pool (src/runtime/warm-pool.ts) and one of its entries, a worker
 * process started before its session exists. Runtime → entry: `launch` (or `spare`) once, then
 * `assign` once. Entry → runtime: `ready` once its `claude` is booting (a spare: once it has loaded
 * the SDK), `assigned` once it took the execution. The channel only carries hints: the execution's
 * record in the store is what the entry runs.
 */
import type { SessionRecord } from '../store/store.js';

/** What a new session's execution is launched from: the fields `sessionLaunch` and `claude` read. */
export interface WarmLaunch {
  provider: string;
  organization: string | null;
  role: string | null;
  cwd: string;
  /** The config as a session stores it (no credentials). */
  config: Record<string, unknown>;
}

export interface WarmAssignment {
  sessionId: string;
  executionId: string;
  /**
   * The session as the runtime read it when it started the execution: only a hint, so that a spare
   * boots a woken session's `claude` before it reads the store. The execution runs what the store
   * holds, and keeps that `claude` only if it prepares the very same config.
   */
  session?: SessionRecord;
}

export type ToWarmEntry =
  | { type: 'launch'; launch: WarmLaunch }
  | { type: 'spare' }
  | ({ type: 'assign' } & WarmAssignment);
export type FromWarmEntry = { type: 'ready' } | { type: 'assigned'; executionId: string };

/**
 * In the entry: takes the launch and boots for it (`prepare`; a spare's launch is null), says
 * `ready`, then waits for an execution. Resolves with it (after saying `assigned` and leaving the channel, so that the entry
 * no longer depends on its runtime), or with null when the channel closes first (the runtime is
 * gone, or it closed its pool).
 */
export function waitForAssignment(
  prepare: (launch: WarmLaunch | null) => Promise<void>,
): Promise<WarmAssignment | null> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      resolve(null);
      return;
    }
    const send = (message: FromWarmEntry, then?: () => void) =>
      process.send?.(message, undefined, {}, () => then?.());
    let preparing: Promise<void> = Promise.resolve();
    const onDisconnect = () => resolve(null);
    process.once('disconnect', onDisconnect);
    process.on('message', (message: ToWarmEntry) => {
      if (message.type === 'launch' || message.type === 'spare') {
        preparing = prepare(message.type === 'launch' ? message.launch : null);
        preparing.then(() => send({ type: 'ready' }), reject);
        return;
      }
      if (message.type !== 'assign') return;
      process.off('disconnect', onDisconnect);
      process.removeAllListeners('message');
      const assignment: WarmAssignment = {
        sessionId: message.sessionId,
        executionId: message.executionId,
        ...(message.session ? { session: message.session } : {}),
      };
      // Taken before its claude was booting: the execution takes it once it is.
      preparing.then(() => {
        send({ type: 'assigned', executionId: message.executionId }, () => process.disconnect?.());
        resolve(assignment);
      }, reject);
    });
  });
}
