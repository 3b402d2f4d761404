/**
 * `work` or a rejection with `onTimeout()` after `ms` (or the signal's reason when it aborts
 * first). The work itself is not stopped here: the caller ends it (sharp's own timeout, a
 * worker's terminate).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => finish(() => reject(onTimeout())), ms);
    const onAbort = () => finish(() => reject(signal!.reason as Error));
    signal?.addEventListener('abort', onAbort, { once: true });
    function finish(settle: () => void): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    }
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error as Error)),
    );
  });
}
