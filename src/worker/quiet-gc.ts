/**
 * One full, memory-reducing garbage collection when a worker has gone quiet after a turn, instead
 * of V8's memory reducer doing it on its own at a moment of its choosing (decision 0173). Workers
 * start with `--expose-gc --no-memory-reducer` (src/runtime/supervisor.ts). Without them (a worker
 * run by hand, the CLI's in-process execution) there is no `gc`: it does nothing, and V8's reducer
 * stays on.
 */
type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

const exposed = (globalThis as { gc?: Gc }).gc;

/** Collects once `afterMs` after `idle()`, if the worker is still quiet then; a turn cancels it. */
export class QuietCollection {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly afterMs: number,
    private readonly quiet: () => boolean,
    private readonly collect: Gc | undefined = exposed,
  ) {}

  /** A turn is over: collect once the worker has been quiet for `afterMs`. */
  idle(): void {
    this.cancel();
    if (!this.collect || this.afterMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.quiet()) this.collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }, this.afterMs).unref();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
