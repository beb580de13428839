import { randomUUID } from 'node:crypto';
import type { UserInput } from '../backends/agent-backend.js';
import { idleTimeoutReason } from '../journal/journal-event.js';
import { addJournalInput, type JournalInputOptions } from '../journal/journal-input.js';
import { type ReachedLimit, reachedLimit } from '../store/budget-limits.js';
import type { InputRecord, Store } from '../store/store.js';
import type { ExecutionJournal } from './execution-journal.js';

export interface InputFeedOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  journal: ExecutionJournal;
  /** How often to look for inputs. @default 50 */
  pollMs?: number;
  /** Stop after this long with no turn and nothing keeping the worker up; 0 = never. @default 600000 */
  idleTimeoutMs?: number;
  nap: (ms: number) => Promise<void>;
  /** Ends the feed's nap (an input was handed to it). */
  wake: () => void;
  /** The lease epoch the worker's writes are fenced by. */
  epoch: () => number;
  /** Whether something keeps the worker up between turns (a person being asked, a background task). */
  busy: () => boolean;
  /** Why the worker stops, once it does; the feed ends then. */
  stopping: () => string | undefined;
  /** Asks the worker to stop (a stop request seen, the idle timeout). */
  stop: (reason: string) => void;
  /** A turn starts on this input; `traced` false for a turn agentd made itself. */
  onTurnStart?: (inputId: string, options: { traced: boolean }) => Promise<void>;
  /** Once before the first input and after every turn, once it has settled (a seed run's checks). */
  afterTurn?: () => Promise<void>;
  /** Before each look for the next input, between turns: journals inputs that wait elsewhere (monitors'). */
  gather?: () => Promise<void>;
}

/**
 * The session's accepted inputs, oldest first, each marked `dispatching` before the backend sees
 * it. The backend asks for the next input only once a turn is over, retries included: that is
 * where the turn settles, exactly once.
 */
export class InputFeed {
  private active = false;
  private lastActivity = Date.now();
  /** The limit the waiting inputs are paused on, as last journaled (`budget.exceeded` once per pause). */
  private paused: ReachedLimit | null = null;
  /** In the nap between turns with nothing to do: an input handed now can start its turn at once. */
  private napping = false;
  /** The handoff being journaled, which the feed waits for once its nap ends. */
  private handing: Promise<unknown> | null = null;
  /** The input a handoff started the next turn on. */
  private handed: InputRecord | null = null;

  constructor(private readonly options: InputFeedOptions) {}

  /** Whether a turn is under way: from its input's dispatch until the backend asks for the next. */
  get turnActive(): boolean {
    return this.active;
  }

  /** Something happened: the idle timeout counts from now. */
  /** How long until the idle timeout is due, were nothing to happen meanwhile; Infinity when never. */
  untilIdleTimeoutMs(): number {
    const idleTimeoutMs = this.options.idleTimeoutMs ?? 600_000;
    if (idleTimeoutMs <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, idleTimeoutMs - (Date.now() - this.lastActivity)) + 1;
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  async *inputs(continueDeferred = false): AsyncGenerator<UserInput> {
    const { store, sessionId } = this.options;
    if (continueDeferred) {
      if (!(await this.beginTurn())) return;
      const id = randomUUID();
      await this.options.onTurnStart?.(id, { traced: false });
      yield { id, text: '', continueDeferred: true };
      await this.endTurn();
    } else await this.options.afterTurn?.();
    // Woken from a nap, the first look is for an input alone: what the gather would journal now
    // (a monitor's output) would queue behind it anyway, and is gathered after its turn.
    let woken = false;
    while (!this.options.stopping()) {
      let [next] = woken ? await store.listInputs(sessionId, { states: ['accepted'] }) : [];
      if (!next) {
        await this.options.gather?.();
        [next] = await store.listInputs(sessionId, { states: ['accepted'] });
      }
      woken = false;
      if (next && (await this.overBudget())) {
        // Paused: the input stays accepted until a limit is raised (the runtime wakes us then).
        if (await this.idleTimedOut({ paused: true })) return;
        await this.options.nap((this.options.pollMs ?? 50) * 20);
        continue;
      }
      if (next) {
        // The execution `running` and the input `dispatching` in one transaction. A stop asked for
        // before the dispatch wins: the input stays accepted, never sent.
        const { execution, input: dispatched } = await this.options.journal.dispatch(next.id);
        if (execution.state !== 'idle' && execution.state !== 'running') {
          this.options.stop(
            execution.state === 'stopping' ? 'stop requested' : `execution ${execution.state}`,
          );
          return;
        }
        if (!dispatched) continue;
        yield* this.turn(dispatched);
        continue;
      }
      if (await this.idleTimedOut()) return;
      this.napping = true;
      await this.options.nap(this.options.pollMs ?? 50);
      this.napping = false;
      // A handoff's dispatch was committed: its turn goes first, stop or not, as any dispatch's.
      await this.handing;
      const handed = this.handed;
      this.handed = null;
      if (handed) yield* this.turn(handed);
      else woken = true;
    }
  }

  /**
   * Journals an input handed to this worker by the runtime on its host (decision 0132). While the
   * feed naps between turns with nothing waiting, the input's turn starts in the same transaction
   * (the execution `running`, the input `dispatching`) and the feed takes it when it wakes;
   * otherwise the input is only accepted, and waits its turn as any other.
   */
  async handOff(options: JournalInputOptions & { messageId: string }): Promise<InputRecord> {
    const { store, sessionId, executionId } = this.options;
    if (!this.napping || this.handing || this.options.stopping()) {
      const input = await addJournalInput(store, sessionId, options);
      this.options.wake();
      return input.input;
    }
    const handing = (async () => {
      // No budget check of its own: the runtime checked this input's limits just before handing it.
      const dispatch = { executionId, epoch: this.options.epoch() };
      const { input, created } = await addJournalInput(store, sessionId, { ...options, dispatch });
      if (created && input.state === 'dispatching') this.handed = input;
      return input;
    })();
    this.handing = handing.catch(() => undefined);
    try {
      return await handing;
    } finally {
      this.handing = null;
      this.options.wake();
    }
  }

  /** One turn on a dispatched input, settled once the backend asks for the next. */
  private async *turn(input: InputRecord): AsyncGenerator<UserInput> {
    this.active = true;
    await this.options.onTurnStart?.(input.id, { traced: true });
    yield { id: input.id, text: input.text };
    await this.endTurn();
  }

  /** The execution is `running`, unless a stop was asked for: then false, and the worker stops. */
  private async beginTurn(): Promise<boolean> {
    const execution = await this.options.journal.setState('running', ['idle', 'running']);
    if (execution.state === 'stopping') {
      this.options.stop('stop requested');
      return false;
    }
    this.active = true;
    return true;
  }

  private async endTurn(): Promise<void> {
    this.active = false;
    this.touch();
    await this.options.journal.settle();
    await this.options.afterTurn?.();
    this.touch();
  }

  /**
   * Whether the session, its role or its organization has reached a spending limit: checked before
   * each dispatch, so inputs accepted while a turn spent past the limit wait. Journals
   * `budget.exceeded` when a pause begins.
   */
  private async overBudget(): Promise<boolean> {
    const { store, sessionId, journal } = this.options;
    const session = await store.getSession(sessionId);
    const limit = session ? await reachedLimit(store, session) : null;
    if (limit && (this.paused?.scope !== limit.scope || this.paused.target !== limit.target)) {
      await journal.append([{ type: 'budget.exceeded', ...limit }]);
    }
    this.paused = limit;
    return limit !== null;
  }

  private async idleTimedOut(options: { paused?: boolean } = {}): Promise<boolean> {
    const { store, sessionId, journal } = this.options;
    const idleTimeoutMs = this.options.idleTimeoutMs ?? 600_000;
    if (idleTimeoutMs <= 0 || this.options.busy() || Date.now() - this.lastActivity <= idleTimeoutMs)
      return false;
    // Mark first, then look once more: a sender either sees `stopping` or we see its input.
    await journal.setState('stopping', ['idle', 'running']);
    // Inputs paused on a budget do not hold the worker up: raising the limit starts another.
    if (!options.paused && (await store.listInputs(sessionId, { states: ['accepted'] })).length > 0) {
      await journal.setState('idle', ['stopping']);
      this.touch();
      return false;
    }
    this.options.stop(idleTimeoutReason);
    return true;
  }
}
