import { injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';

/** Wall-clock time (App scope): services that measure windows and budgets read it here, so tests rebind a fake. */
export interface IClock {
  /** Milliseconds since the epoch. */
  now(): number;
}
export const IClock = createServiceId<IClock>('Clock');

@injectable()
export class SystemClock implements IClock {
  now(): number {
    return Date.now();
  }
}
