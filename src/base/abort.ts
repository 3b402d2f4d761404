/**
 * Aborts `target` with the reason of `source` when `source` aborts (at once when it has); the
 * returned function stops following. What `AbortSignal.any([source, target.signal])` gives, at
 * half its cost, with an end: call the function when the work is over, and nothing is left on
 * `source` (see deadlineSignal for what Node 20 keeps of a combined signal).
 */
export function abortWith(target: AbortController, source: AbortSignal): () => void {
  if (source.aborted) {
    target.abort(source.reason);
    return () => undefined;
  }
  const follow = (): void => target.abort(source.reason);
  source.addEventListener('abort', follow, { once: true });
  return () => source.removeEventListener('abort', follow);
}

/** A signal that aborts when its source does or when its deadline passes; see deadlineSignal. */
export interface DeadlineSignal {
  readonly signal: AbortSignal;
  /** Whether the deadline aborted it (not the source). */
  readonly timedOut: boolean;
  /** Clears the timer and stops following the source: call it when the work has ended. */
  dispose(): void;
}

/**
 * `AbortSignal.any([source, AbortSignal.timeout(ms)])` with an end: Node 20 keeps a combined or
 * timeout signal that has an abort listener in a module-wide set until the listener goes or the
 * signal aborts, so a listener a library leaves on it (or the timer, for as long as `ms`) keeps the
 * signal and everything its listeners hold alive. Here `dispose` drops both the timer and the
 * listener on the source. The deadline aborts with `reason()` (by default the TimeoutError that
 * AbortSignal.timeout gives); the timer does not keep the process alive.
 */
export function deadlineSignal(source: AbortSignal, ms: number, reason: () => unknown = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError')): DeadlineSignal {
  const controller = new AbortController();
  const unfollow = abortWith(controller, source);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = !controller.signal.aborted;
    controller.abort(reason());
  }, ms);
  timer.unref();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose: () => {
      clearTimeout(timer);
      unfollow();
    },
  };
}
