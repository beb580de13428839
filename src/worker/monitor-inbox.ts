import { journalInput } from '../journal/journal-input.js';
import { deliverPending, readLedger, reconcileMonitors } from '../monitor/monitor-delivery.js';
import { MonitorLedger } from '../monitor/monitor-ledger.js';
import type { Store } from '../store/store.js';

/** How often the inbox checks that the monitors' runners are still alive. */
const reconcileMs = 1000;

/**
 * The worker's side of the session's monitors: between turns, their pending output becomes one
 * input per monitor (dispatched by the feed like any other), and a monitor that runs keeps the
 * worker from its idle timeout.
 */
export class MonitorInbox {
  private readonly ledger: MonitorLedger;
  private lastReconcile = 0;
  private liveCount = 0;

  constructor(private readonly options: { store: Store; sessionId: string }) {
    this.ledger = new MonitorLedger(options.sessionId);
  }

  /** Monitors of the session that run (as of the last `collect`). */
  get running(): number {
    return this.liveCount;
  }

  /** Reads what the journal gained and journals the pending output as inputs. */
  async collect(): Promise<void> {
    const { store, sessionId } = this.options;
    await readLedger(store, sessionId, this.ledger);
    if (Date.now() - this.lastReconcile >= reconcileMs) {
      this.lastReconcile = Date.now();
      await reconcileMonitors(store, this.ledger);
    }
    this.liveCount = this.ledger.live().length;
    await deliverPending(this.ledger, (input) => journalInput(store, sessionId, input));
  }
}
