/**
 * Counts the calls of a batch between preflight and their end, and lets preflight wait until
 * fewer than `size` are: the batch's memory then grows with the window, not with the batch.
 */
export class CallWindow {
  private open = 0;
  private waiter: (() => void) | undefined;

  constructor(private readonly size: number) {}

  /** How many more calls may be preflighted now (at least 1 once untilRoom has resolved). */
  get room(): number {
    return this.size - this.open;
  }

  /** Resolves once fewer than `size` calls are open. */
  untilRoom(): Promise<void> {
    if (this.open < this.size) return Promise.resolve();
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Counts the call until its result settles; returns the same promise. */
  track<T>(result: Promise<T>): Promise<T> {
    this.open++;
    const close = () => {
      this.open--;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.();
    };
    result.then(close, close);
    return result;
  }
}
