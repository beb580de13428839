/** A turn's wall clock that stops while a person is being asked. */
export class TurnTimer {
  private handle: NodeJS.Timeout | undefined;
  private remainingMs: number;
  private startedAt = 0;

  constructor(
    private readonly limitMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remainingMs = limitMs;
  }

  start(): void {
    if (this.limitMs <= 0 || this.handle) return;
    this.startedAt = Date.now();
    this.handle = setTimeout(this.onExpire, Math.max(0, this.remainingMs));
  }

  pause(): void {
    if (!this.handle) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.remainingMs -= Date.now() - this.startedAt;
  }

  stop(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
  }
}
