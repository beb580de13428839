import { LeaseLostError } from '../errors/index.js';
import type { Store } from '../store/store.js';

export interface LeaseKeeperOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  /** @default 15000 */
  ttlMs?: number;
  /**
   * While this says so (the worker is quiet: no turn, nothing asked, nothing in the background),
   * renewals give the lease `quietTtlFactor` times its time, so a quiet worker renews that much less
   * often. @default never
   */
  quiet?: () => boolean;
  /**
   * 12 × the default 15 s is 3 minutes, renewed every minute: one wake a minute, which the quiet
   * worker's safety poll shares (decision 0170). @default 12
   */
  quietTtlFactor?: number;
}

/** How many times its time a quiet worker's lease is given (decision 0170; 4 before). */
export const defaultQuietTtlFactor = 12;

/** What became of the attempt to take the session's lease. */
export type LeaseOutcome =
  | { taken: true; epoch: number }
  /** Another execution holds the session. */
  | { taken: false; heldBy: 'other' }
  /**
   * This execution already ran, or runs in another process: this process is a duplicate, and must
   * leave without writing anything.
   */
  | { taken: false; heldBy: 'self' };

/**
 * The session's lease for one execution: taken once, renewed while the worker lives, and the epoch
 * that fences every write of the worker.
 */
export class LeaseKeeper {
  private currentEpoch = 0;
  private lastRenewal = 0;
  /** The time the last acquisition or renewal gave the lease. */
  private lastTtlMs = 0;
  private isLost = false;
  readonly ttlMs: number;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.ttlMs = options.ttlMs ?? 15_000;
  }

  get epoch(): number {
    return this.currentEpoch;
  }

  /** True once a renewal was refused (or a write was fenced off): another worker owns the session. */
  get lost(): boolean {
    return this.isLost;
  }

  markLost(): void {
    this.isLost = true;
  }

  async acquire(process: { pid: number; processStartTime: string | null }): Promise<LeaseOutcome> {
    const { store, sessionId, executionId } = this.options;
    // A process of an execution that is no longer starting (it ran, or runs elsewhere) is a
    // duplicate: it reads, and leaves. The store makes the same check atomically on acquisition.
    const execution = await store.getExecution(executionId);
    if (execution?.epoch !== 0 || !['starting', 'stopping'].includes(execution.state))
      return { taken: false, heldBy: 'self' };
    const lease = await store.acquireLease({
      sessionId,
      owner: executionId,
      ttlMs: this.ttlMs,
      pid: process.pid,
      processStartTime: process.processStartTime,
      now: Date.now(),
    });
    if (lease) {
      this.currentEpoch = lease.epoch;
      this.lastRenewal = Date.now();
      this.lastTtlMs = this.ttlMs;
      return { taken: true, epoch: lease.epoch };
    }
    // Refused without another live owner: the store found this execution not fresh, or not ours.
    const holder = await store.getLease(sessionId);
    const other = holder !== null && holder.owner !== executionId && holder.expiresAt > Date.now();
    return { taken: false, heldBy: other ? 'other' : 'self' };
  }

  /** How long until `renewIfDue` renews. */
  untilRenewalMs(): number {
    return Math.max(0, this.lastTtlMs / 3 - (Date.now() - this.lastRenewal)) + 1;
  }

  /**
   * Renews the lease once a third of the time it was last given has passed; `LeaseLostError` when
   * refused. A quiet worker gives it `quietTtlFactor` times its time (decisions 0137, 0170).
   */
  async renewIfDue(): Promise<void> {
    if (Date.now() - this.lastRenewal <= this.lastTtlMs / 3) return;
    const ttlMs = this.options.quiet?.()
      ? this.ttlMs * (this.options.quietTtlFactor ?? defaultQuietTtlFactor)
      : this.ttlMs;
    const renewed = await this.options.store.renewLease({
      sessionId: this.options.sessionId,
      epoch: this.currentEpoch,
      ttlMs,
      now: Date.now(),
    });
    if (!renewed) throw new LeaseLostError('lease renewal refused');
    this.lastRenewal = Date.now();
    this.lastTtlMs = ttlMs;
  }
}
