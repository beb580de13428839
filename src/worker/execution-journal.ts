import { type JournalEvent, journalEntry } from '../journal/journal-event.js';
import type { ExecutionRecord, ExecutionState, InputRecord, Store } from '../store/store.js';

export interface ExecutionJournalOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  /** The lease epoch every write is fenced by (0 until the lease is taken). */
  epoch: () => number;
  log: (line: string) => void;
}

/** How an execution ends, as its journal and its record tell it. */
export interface ExecutionFailure {
  code: string;
  message: string;
  /**
   * The input being dispatched provably never reached the agent (its process could not even be
   * started): it goes back to `accepted` instead of `uncertain`.
   */
  inputsNeverSent?: boolean;
}

/**
 * What the worker writes about its own execution: its journal events and its execution and input
 * records, each fenced by the lease epoch, so that a worker that lost its lease writes nothing.
 */
export class ExecutionJournal {
  constructor(private readonly options: ExecutionJournalOptions) {}

  /** The lease epoch the writes are fenced by. */
  epoch(): number {
    return this.options.epoch();
  }

  async append(events: JournalEvent[]): Promise<void> {
    const { store, sessionId, executionId, epoch } = this.options;
    await store.appendEvents(
      sessionId,
      events.map((event) => journalEntry(event, executionId)),
      { epoch: epoch(), now: Date.now() },
    );
  }

  /**
   * The worker's own state change (`idle`, `running`), made only from the states it expects: a stop
   * asked for meanwhile (`stopping`) is never overwritten. Returns the record as it now is.
   */
  async setState(state: ExecutionState, from: readonly ExecutionState[]): Promise<ExecutionRecord> {
    const { store, executionId, epoch } = this.options;
    return store.updateExecution(
      executionId,
      { state, now: Date.now() },
      { epoch: epoch(), stateFrom: from },
    );
  }

  /** The lease is taken: the execution records its epoch and process and announces itself. */
  async started(process: { pid: number; processStartTime: string | null }): Promise<ExecutionRecord> {
    const { store, executionId, epoch } = this.options;
    const execution = await store.updateExecution(
      executionId,
      { state: 'idle', epoch: epoch(), ...process, now: Date.now() },
      { epoch: epoch(), stateFrom: ['starting'] },
    );
    await this.append([{ type: 'execution.started', executionId, epoch: epoch(), pid: process.pid }]);
    return execution;
  }

  /**
   * Another execution holds the session: this one failed, but only while it is still starting, so
   * that a record someone else wrote is kept. Not fenced: this execution never held the lease.
   */
  async leaseHeld(): Promise<void> {
    const { store, executionId } = this.options;
    await store.updateExecution(
      executionId,
      {
        state: 'failed',
        error: { code: 'lease_held', message: 'another worker holds this session' },
        endedAt: Date.now(),
        now: Date.now(),
      },
      { stateFrom: ['starting', 'stopping'] },
    );
  }

  /**
   * The agent echoed the input: delivered, and `event` (its `input.delivered`) journaled in the same
   * transaction. False, and nothing written, when it was not this execution's to deliver.
   */
  async delivered(inputId: string, event: JournalEvent): Promise<boolean> {
    const { store, sessionId, executionId, epoch } = this.options;
    const changed = await store.updateInputStates({
      sessionId,
      inputIds: [inputId],
      from: ['accepted', 'dispatching'],
      to: 'delivered',
      epoch: epoch(),
      now: Date.now(),
      events: [journalEntry(event, executionId)],
    });
    return changed.length > 0;
  }

  /**
   * Starts a turn on an accepted input: the execution `running` and the input `dispatching`, in one
   * transaction. Null when a stop was asked for (`stopping`: the input stays accepted) or the input
   * is no longer accepted.
   */
  async dispatch(inputId: string): Promise<{ execution: ExecutionRecord; input: InputRecord | null }> {
    const { store, sessionId, executionId, epoch } = this.options;
    return store.dispatchInput({ sessionId, inputId, executionId, epoch: epoch(), now: Date.now() });
  }

  /** The agent's own session id: the cursor a later execution resumes from. */
  async nativeSession(nativeSessionId: string): Promise<void> {
    await this.options.store.updateSession(this.options.sessionId, { nativeSessionId, now: Date.now() });
  }

  /** A turn is over: the execution is idle, and settled unless more inputs wait. */
  async settle(): Promise<void> {
    const { store, sessionId, executionId } = this.options;
    const queued = await store.listInputs(sessionId, { states: ['accepted'] });
    if (queued.length > 0) return;
    await this.setState('idle', ['running', 'idle']);
    await this.append([{ type: 'work.settled', executionId }]);
  }

  /**
   * An input whose turn ended without the agent echoing it (the turn was given up, or the worker
   * stopped first) was perhaps never seen: `uncertain`, never left `dispatching`.
   */
  async markUndelivered(): Promise<InputRecord[]> {
    const { store, sessionId, executionId, epoch } = this.options;
    const stuck = (await store.listInputs(sessionId, { states: ['dispatching'] })).filter(
      (input) => input.executionId === executionId,
    );
    if (stuck.length === 0) return [];
    const uncertain = await store.updateInputStates({
      sessionId,
      inputIds: stuck.map((input) => input.id),
      from: ['dispatching'],
      to: 'uncertain',
      epoch: epoch(),
      now: Date.now(),
    });
    this.options.log(`inputs not echoed by the agent, now uncertain: ${idsOf(uncertain)}`);
    return uncertain;
  }

  /** Inputs that provably never reached the agent are accepted again, for a later execution. */
  private async returnUnsent(): Promise<void> {
    const { store, sessionId, executionId, epoch } = this.options;
    const unsent = (await store.listInputs(sessionId, { states: ['dispatching'] })).filter(
      (input) => input.executionId === executionId,
    );
    if (unsent.length === 0) return;
    const returned = await store.updateInputStates({
      sessionId,
      inputIds: unsent.map((input) => input.id),
      from: ['dispatching'],
      to: 'accepted',
      epoch: epoch(),
      now: Date.now(),
    });
    this.options.log(`inputs never sent to the agent, accepted again: ${idsOf(returned)}`);
  }

  async finish(reason: string): Promise<void> {
    const { store, sessionId, executionId, epoch } = this.options;
    await this.markUndelivered();
    await store.updateExecution(
      executionId,
      { state: 'stopped', endedAt: Date.now(), now: Date.now() },
      { epoch: epoch() },
    );
    await this.append([{ type: 'execution.stopped', executionId, reason }]);
    await store.releaseLease({ sessionId, epoch: epoch() });
    this.options.log(`stopped: ${reason}`);
  }

  async fail(failure: ExecutionFailure): Promise<void> {
    const { store, sessionId, executionId, epoch } = this.options;
    const error = { code: failure.code, message: failure.message };
    try {
      if (failure.inputsNeverSent) await this.returnUnsent();
      const uncertain = await this.markUndelivered();
      await store.updateExecution(
        executionId,
        { state: 'failed', error, endedAt: Date.now(), now: Date.now() },
        { epoch: epoch() },
      );
      await this.append([
        {
          type: 'execution.failed',
          executionId,
          error,
          uncertainInputIds: uncertain.map((input) => input.id),
        },
      ]);
      await store.releaseLease({ sessionId, epoch: epoch() });
    } catch (secondary) {
      this.options.log(`could not record the failure: ${String(secondary)}`);
    }
  }
}

function idsOf(inputs: InputRecord[]): string {
  return inputs.map((input) => input.id).join(', ');
}
