import { injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';

/** Wall-clock time (App scope). Tests rebind it with a fake to step through windows and limits. */
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
