import type { IDisposable } from '../../base/lifecycle';

/** The signal of a batch executed without one. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** What `untilGraceOver` returns when the batch was aborted and the work did not settle in time. */
export const GAVE_UP: unique symbol = Symbol('gave up after the abort grace period');

/**
 * One listener for the batch: resolves when it aborts, and again when the grace period after it
 * ends. Work awaited through it is raced against those moments by a callback that is dropped once
 * the work settles, not by `Promise.race` with the long-lived promises: each race would leave a
 * reaction on them holding the work's value (a tool's execution, its result) until the batch ends.
 */
export class AbortWatch implements IDisposable {
  readonly aborted: Promise<void>;
  readonly graceOver: Promise<void>;
  private isAborted = false;
  private isGraceOver = false;
  private readonly onAborted = new Set<() => void>();
  private readonly onGraceOver = new Set<() => void>();
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
    const endGrace = () => {
      this.isGraceOver = true;
      markGraceOver();
      for (const giveUp of [...this.onGraceOver]) giveUp();
    };
    this.onAbort = () => {
      this.isAborted = true;
      markAborted();
      for (const stop of [...this.onAborted]) stop();
      this.timer = setTimeout(endGrace, graceMs);
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
    return this.race(work, this.onGraceOver, this.isGraceOver, GAVE_UP);
  }

  /** Awaits work unless the batch aborts first (then resolves undefined at once). */
  untilAborted<T>(work: T | PromiseLike<T>): Promise<T | undefined> {
    return this.race(work, this.onAborted, this.isAborted, undefined);
  }

  private race<T, E>(work: T | PromiseLike<T>, moment: Set<() => void>, passed: boolean, early: E): Promise<T | E> {
    const settled = new Promise<T>((resolve) => resolve(work));
    settled.catch(() => undefined);
    if (passed) return Promise.resolve(early);
    return new Promise<T | E>((resolve, reject) => {
      const endEarly = () => resolve(early);
      moment.add(endEarly);
      settled.then(
        (value) => {
          moment.delete(endEarly);
          resolve(value);
        },
        (error: unknown) => {
          moment.delete(endEarly);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.timer) clearTimeout(this.timer);
  }
}
