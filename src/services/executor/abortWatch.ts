import type { IDisposable } from '../../base/lifecycle';

/** The signal of a batch executed without one. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** What `untilGraceOver` returns when the batch was aborted and the work did not settle in time. */
export const GAVE_UP: unique symbol = Symbol('gave up after the abort grace period');

/** One listener for the batch: resolves when it aborts, and again when the grace period after it ends. */
export class AbortWatch implements IDisposable {
  readonly aborted: Promise<void>;
  readonly graceOver: Promise<void>;
  private readonly gaveUp: Promise<typeof GAVE_UP>;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort: () => void;

  constructor(
    private readonly signal: AbortSignal,
    graceMs: number,
  ) {
    let markAborted!: () => void;
    let markGraceOver!: () => void;
    this.aborted = new Promise((resolve) => (markAborted = resolve));
    this.graceOver = new Promise((resolve) => (markGraceOver = resolve));
    this.gaveUp = this.graceOver.then(() => GAVE_UP);
    this.onAbort = () => {
      markAborted();
      this.timer = setTimeout(markGraceOver, graceMs);
    };
    if (signal.aborted) this.onAbort();
    // The shared never-aborting signal gets no listener: concurrent batches would pile them up on it.
    else if (signal !== NEVER_ABORTED) signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Awaits work from a tool, a hook or the host, unless the batch aborts and the grace period
   * passes first (then GAVE_UP). A rejection that comes after giving up is swallowed. Any value is
   * accepted: a thenable whose `then` throws rejects, it does not throw here.
   */
  untilGraceOver<T>(work: T | PromiseLike<T>): Promise<T | typeof GAVE_UP> {
    const settled = new Promise<T>((resolve) => resolve(work));
    settled.catch(() => undefined);
    return Promise.race([settled, this.gaveUp]);
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.timer) clearTimeout(this.timer);
  }
}
