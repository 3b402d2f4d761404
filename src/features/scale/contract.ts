import type { Redis, RedisOptions } from 'ioredis';
import { createServiceId } from '../../di/serviceId';

/** The scale feature's contract for other features and hosts: the App's Redis, when one is configured. */

/**
 * The App's Redis (App scope), from config `scale.redis` as it was when first used (a changed URL
 * takes a new App). Connections open on first use and close when the App is disposed; without
 * `scale.redis.url` nothing opens and ioredis is never loaded.
 */
export interface IScaleRedis {
  /** Whether `scale.redis.url` is set. */
  readonly enabled: boolean;
  /** `scale.redis.keyPrefix`: every key and queue name toolhost uses starts with it. */
  readonly keyPrefix: string;
  /** The App's one shared connection for plain commands; throws when Redis is not configured. */
  connection(): Redis;
  /**
   * Another connection to the same server, closed with the App, for what cannot share one: a
   * BullMQ Worker blocks its connection (`{ maxRetriesPerRequest: null }`). Throws when Redis is
   * not configured.
   */
  openConnection(extra?: RedisOptions): Redis;
}
export const IScaleRedis = createServiceId<IScaleRedis>('ScaleRedis');
