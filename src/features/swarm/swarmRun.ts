import type { SubagentLaunch, SubagentOutcome, SubagentRunEvent } from '../../tools/agent/contract';

/** How one item ended. `outcome` is absent for an item the abort reached before it started. */
export interface SwarmItemResult {
  readonly item: string;
  readonly outcome?: SubagentOutcome;
  /** Runs started for it: more than 1 after rate-limit retries. */
  readonly attempts: number;
}

export interface SwarmCounts {
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly aborted: number;
}

export interface SwarmRunOptions {
  readonly items: readonly string[];
  /** The first launch of each item, in item order. */
  readonly launches: readonly SubagentLaunch[];
  readonly concurrency: number;
  /** How often an item the runner failed with `retryAfterMs` is started again (as a new child). */
  readonly rateLimitRetries: number;
  readonly signal: AbortSignal;
  run(launch: SubagentLaunch, signal: AbortSignal, onEvent: (event: SubagentRunEvent) => void): Promise<SubagentOutcome>;
  /** A fresh launch (new agent id) of the same item, for a retry. */
  relaunch(launch: SubagentLaunch): SubagentLaunch;
  /** After every item that ended. */
  onSettled(counts: SwarmCounts): void;
  /** The provider asked to wait: no child starts for `waitMs`. */
  onPaused(waitMs: number, counts: SwarmCounts): void;
}

/**
 * Runs the items with at most `concurrency` children at once. Items start in order and a free
 * slot is taken at once by the next item (retries first: they have waited longest), so a slow
 * item holds up only its own slot. The pacing governor: a `rate_limited` event or a result with
 * `retryAfterMs` stops every launch until that time has passed; running children go on (their
 * runner waits on its own). An abort starts nothing more; every running child gets the signal.
 */
export async function runSwarm(options: SwarmRunOptions): Promise<SwarmItemResult[]> {
  const { items, concurrency, signal } = options;
  const results: (SwarmItemResult | undefined)[] = items.map(() => undefined);
  const attempts = items.map(() => 0);
  const queue: { readonly index: number; readonly launch: SubagentLaunch }[] = options.launches.map((launch, index) => ({ index, launch }));
  let running = 0;
  let pausedUntil = 0;
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const counts = (): SwarmCounts => {
    const ended = results.filter((r): r is SwarmItemResult => r !== undefined);
    return {
      total: items.length,
      completed: ended.filter((r) => r.outcome?.status === 'completed').length,
      failed: ended.filter((r) => r.outcome?.status === 'failed').length,
      aborted: ended.filter((r) => r.outcome === undefined || r.outcome.status === 'aborted').length,
    };
  };
  const pause = (waitMs: number) => {
    const until = Date.now() + Math.max(0, waitMs);
    if (until <= pausedUntil) return;
    pausedUntil = until;
    options.onPaused(waitMs, counts());
  };
  const start = (index: number, launch: SubagentLaunch) => {
    running++;
    attempts[index]!++;
    const onEvent = (event: SubagentRunEvent) => {
      if (event.type === 'rate_limited') pause(event.retryAfterMs);
    };
    void options.run(launch, signal, onEvent).then((outcome) => {
      running--;
      if (outcome.status === 'failed' && outcome.retryAfterMs !== undefined && attempts[index]! <= options.rateLimitRetries && !signal.aborted) {
        pause(outcome.retryAfterMs);
        queue.unshift({ index, launch: options.relaunch(launch) });
      } else {
        results[index] = { item: items[index]!, outcome, attempts: attempts[index]! };
        options.onSettled(counts());
      }
      poke();
    });
  };
  signal.addEventListener('abort', poke);
  try {
    for (;;) {
      if (signal.aborted) break;
      while (running < concurrency && queue.length > 0 && pausedUntil <= Date.now()) {
        const next = queue.shift()!;
        start(next.index, next.launch);
      }
      if (queue.length === 0 && running === 0) break;
      await new Promise<void>((resolve) => {
        // Paused with a free slot: wake when the pause ends (a settling child or the abort wakes it sooner).
        const timer = running < concurrency && queue.length > 0 ? setTimeout(resolve, pausedUntil - Date.now()) : undefined;
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    // Aborted: nothing more starts; wait for the running children to end (each gets the signal).
    while (running > 0) await new Promise<void>((resolve) => (wake = resolve));
  } finally {
    signal.removeEventListener('abort', poke);
  }
  return results.map((result, index) => result ?? { item: items[index]!, attempts: attempts[index]! });
}
