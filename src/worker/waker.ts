/**
 * Naps that end early when woken: the runtime signals the worker when it journals an input, an
 * answer, a stop or an interrupt. A wake is kept for each loop until its next nap, so one that
 * comes while the loop is reading the store (not napping) ends that nap at once instead of being
 * lost until the safety poll.
 */
export class Waker {
  private readonly wakers = new Set<() => void>();
  private wakes = 0;

  /** Ends every nap under way at once, and the next nap of every loop that is not napping now. */
  wake(): void {
    this.wakes++;
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const waker of wakers) waker();
  }

  /** The nap of one loop: sleeps for `ms`, or until a wake that this loop has not seen yet. */
  napper(): (ms: number) => Promise<void> {
    let seen = this.wakes;
    return async (ms) => {
      if (this.wakes === seen) await this.sleep(ms);
      seen = this.wakes;
    };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }
}
