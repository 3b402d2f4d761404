/** Waiting in tests: polling for a condition (no fixed sleeps) and promises resolved by hand. */

export interface WaitForOptions {
  /** What is awaited, for the timeout message: "Timed out waiting for <what>". */
  readonly what: string;
  /** Default 20 s: generous for loaded machines. */
  readonly timeoutMs?: number;
}

/**
 * Polls `check` until it returns a value other than undefined or false (a promise is awaited)
 * and returns that value; fails with `what` after `timeoutMs`.
 */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, options: WaitForOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
