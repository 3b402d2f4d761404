import type { IDisposable } from '../../base/lifecycle';

/** The signal of a batch executed without one. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** One listener for the batch: resolves when it aborts, and again when the grace period after it ends. */
export class AbortWatch implements IDisposable {
  readonly aborted: Promise<void>;
  readonly graceOver: Promise<void>;
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
    this.onAbort = () => {
      markAborted();
      this.timer = setTimeout(markGraceOver, graceMs);
    };
    if (signal.aborted) this.onAbort();
    // The shared never-aborting signal gets no listener: concurrent batches would pile them up on it.
    else if (signal !== NEVER_ABORTED) signal.addEventListener('abort', this.onAbort, { once: true });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.timer) clearTimeout(this.timer);
  }
}
