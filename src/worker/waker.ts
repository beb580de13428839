/** Naps that end early when woken: the runtime signals the worker when it journals an input or an answer. */
export class Waker {
  private readonly wakers: Array<() => void> = [];

  /** Ends every nap under way at once. */
  wake(): void {
    const wakers = this.wakers.splice(0);
    for (const waker of wakers) waker();
  }

  /** Sleeps for `ms`, or until `wake()`. */
  nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const wakers = this.wakers;
      function done() {
        clearTimeout(timer);
        const index = wakers.indexOf(done);
        if (index >= 0) wakers.splice(index, 1);
        resolve();
      }
      wakers.push(done);
    });
  }
}
