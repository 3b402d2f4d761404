import { spawnSync } from 'node:child_process';

export { type RedisTestServer, startRedisServer } from './redisProcess';

/** Whether redis-server is on PATH. Under CI (`CI` set) a missing server is an error, never a skip. */
export function redisServerAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI) throw new Error('redis-server is not installed, but CI is set: .ci/run must install it (apt-get install -y redis-server)');
  return found;
}

/**
 * `describe` when redis-server is installed; otherwise a skipped describe whose name says why.
 * Under CI a missing server fails the file instead (see redisServerAvailable).
 */
export const describeWithRedis: jest.Describe = ((): jest.Describe => {
  if (redisServerAvailable()) return describe;
  const skipped = ((name: string, fn: jest.EmptyFunction) => describe.skip(`${name} (skipped: redis-server is not installed; apt-get install -y redis-server)`, fn)) as jest.Describe;
  return Object.assign(skipped, describe);
})();
