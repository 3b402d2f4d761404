import { describeWhenInstalled, programInstalled } from './installed';

export { type RedisTestServer, startRedisServer } from './redisProcess';

/** Whether redis-server is on PATH. Under CI (`CI` set) a missing server is an error, never a skip. */
export function redisServerAvailable(): boolean {
  return programInstalled('redis-server', ['--version'], 'redis-server');
}

/** Suites that run a real redis-server (skipped with a message without one; an error under CI). */
export const describeWithRedis = describeWhenInstalled('redis-server', ['--version'], 'redis-server');
