import { liveExecutionStates, type Store } from '../store/store.js';
import type { Supervisor } from './supervisor.js';

/**
 * One check for every follower of this runtime that the workers of the sessions they follow are
 * still there, instead of one per follower: every `intervalMs`, one query for the live executions
 * and a look at their processes; a session whose worker is gone is reconciled (its `execution.failed`
 * journaled), which wakes its followers through the change feed. Followers then need no timer of
 * their own beyond a slow safety poll, so 100 idle streams cost one query every 2 s (decision 0137).
 */
export class FollowWatch {
  private readonly followed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly options: { store: Store; supervisor: Supervisor; intervalMs: number }) {}

  /** Watches the session's worker while its follower lives; returns the function that stops it. */
  follow(sessionId: string): () => void {
    this.followed.set(sessionId, (this.followed.get(sessionId) ?? 0) + 1);
    this.timer ??= setInterval(() => this.tick(), this.options.intervalMs).unref();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const count = (this.followed.get(sessionId) ?? 1) - 1;
      if (count > 0) this.followed.set(sessionId, count);
      else this.followed.delete(sessionId);
      if (this.followed.size === 0) this.close();
    };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    // A check still under way (a slow store) is not doubled.
    this.checking ??= this.check()
      .catch(() => {
        // The store is closing or unreachable: the next tick tries again.
      })
      .finally(() => {
        this.checking = undefined;
      });
  }

  private async check(): Promise<void> {
    const { store, supervisor } = this.options;
    const live = await store.listExecutionsByState([...liveExecutionStates]);
    const gone = new Set(
      live
        .filter((execution) => this.followed.has(execution.sessionId) && !supervisor.isAlive(execution))
        .map((execution) => execution.sessionId),
    );
    for (const sessionId of gone) await supervisor.reconcile(sessionId);
  }
}
