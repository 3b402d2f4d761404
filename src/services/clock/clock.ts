import { injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';

/** The time (App scope): services that measure durations (goal budgets) read it here, so tests rebind a fake. */
export interface IClock {
  /** Epoch milliseconds. */
  now(): number;
}
export const IClock = createServiceId<IClock>('Clock');

@injectable()
export class SystemClock implements IClock {
  now(): number {
    return Date.now();
  }
}
