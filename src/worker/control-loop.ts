import type { AgentSession } from '../backends/agent-backend.js';
import { LeaseLostError } from '../errors/index.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store } from '../store/store.js';
import type { LeaseKeeper } from './lease-keeper.js';

export interface ControlLoopOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  lease: LeaseKeeper;
  /** How often to look. @default 100 */
  pollMs?: number;
  nap: (ms: number) => Promise<void>;
  /** Whether a turn runs now (an interrupt applies only to one). */
  turnActive: () => boolean;
  /** The input of the turn that runs now, if any: an interrupt aimed at a turn applies to that one only. */
  turnInputId: () => string | undefined;
  /** Told when the worker is to stop, so that every wait of the worker ends at once. */
  onStop?: () => void;
  log: (line: string) => void;
}

/**
 * The worker's requests from elsewhere, read from the store so that they work across nodes: a stop
 * (the execution marked `stopping`) and an interrupt (`control.interrupt` in the journal). It also
 * keeps the lease renewed, and owns why the worker stops.
 */
/** An interrupt a message sent mid-turn asked for (double texting), applied to the turn of `inputId`. */
export interface TurnCut {
  inputId: string;
  byInputId: string | null;
  rollback: boolean;
}

export class ControlLoop {
  private reason: string | undefined;
  private lastCursor = 0;
  private cut: TurnCut | undefined;

  constructor(private readonly options: ControlLoopOptions) {}

  /** Why the worker stops, once it does. */
  get stopReason(): string | undefined {
    return this.reason;
  }

  /** The first reason given wins. */
  stop(reason: string): void {
    this.reason ??= reason;
    this.options.onStop?.();
  }

  /** Only interrupts journaled after this cursor concern this execution. */
  async startAfter(): Promise<void> {
    this.lastCursor = await this.options.store.lastCursor(this.options.sessionId);
  }

  /**
   * Reads the journal for an interrupt requested since the last look (`control.interrupt`), and
   * whether one applies to the turn now running. One aimed at a turn (`inputId`) applies only
   * while that turn runs: a turn that ended first is not followed by an interrupt of the next.
   */
  async takeInterruptRequest(): Promise<boolean> {
    const { store, sessionId } = this.options;
    let requested = false;
    // Only interrupts are read: the rest of what was journaled since the last look is mostly this
    // worker's own events, which a wake (every new input) would otherwise parse all over again.
    // Every cursor up to `last` was committed before it was read, so none is skipped.
    const last = await store.lastCursor(sessionId);
    const interrupts = await readJournal(store, sessionId, {
      after: this.lastCursor,
      types: ['control.interrupt'],
    });
    this.lastCursor = Math.max(this.lastCursor, last);
    for (const event of interrupts) {
      this.lastCursor = Math.max(this.lastCursor, event.cursor);
      if (event.type !== 'control.interrupt') continue;
      const target = event.data.inputId;
      if (target === undefined) requested = true;
      else if (target === this.options.turnInputId() && this.options.turnActive()) {
        requested = true;
        this.cut = {
          inputId: target,
          byInputId: event.data.byInputId ?? null,
          rollback: this.cut?.rollback === true || event.data.rollback === true,
        };
      }
    }
    return requested && this.options.turnActive();
  }

  /** The cut asked for the turn of `inputId`, taken (once). */
  takeCut(inputId: string | undefined): TurnCut | undefined {
    const cut = this.cut;
    if (!cut || cut.inputId !== inputId) return undefined;
    this.cut = undefined;
    return cut;
  }

  /** Renews the lease and reads requests until the worker stops. */
  async run(session: AgentSession): Promise<void> {
    const { store, executionId, lease, log } = this.options;
    while (!this.reason) {
      await this.options.nap(this.options.pollMs ?? 100);
      if (this.reason) break;
      try {
        await lease.renewIfDue();
        const execution = await store.getExecution(executionId);
        if (execution?.state === 'stopping') {
          this.stop('stop requested');
          if (this.options.turnActive()) await session.interrupt();
          await session.close();
          break;
        }
        if (await this.takeInterruptRequest()) await session.interrupt();
      } catch (error) {
        if (error instanceof LeaseLostError) {
          log('lease lost: stopping claude and exiting');
          lease.markLost();
          this.stop('lease lost');
          await session.close();
          break;
        }
        log(`control: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
