import { injectable } from 'inversify';
import { type IDisposable, toDisposable } from '../../base/lifecycle';
import { createServiceId } from '../../di/serviceId';

/**
 * Wall-clock time and timers (App scope): services that measure windows and budgets or wait for a
 * time read it here, so tests rebind a fake (and can count the timers set).
 */
export interface IClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs `callback` once after `delayMs` of elapsed time (not wall-clock time: a machine asleep, or
   * a clock set back or forward, does not move it; compare `now()` when it runs). Disposing the
   * result cancels it. The timer does not keep the process alive.
   */
  setTimer(delayMs: number, callback: () => void): IDisposable;
}
export const IClock = createServiceId<IClock>('Clock');

/** The most setTimeout waits at once (2^31 - 1 ms, about 24.8 days); longer waits are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

@injectable()
export class SystemClock implements IClock {
  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, callback: () => void): IDisposable {
    let handle: NodeJS.Timeout | undefined;
    const wait = (remaining: number) => {
      const step = Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS);
      handle = setTimeout(() => (remaining > step ? wait(remaining - step) : callback()), step);
      handle.unref();
    };
    wait(delayMs);
    return toDisposable(() => clearTimeout(handle));
  }
}
