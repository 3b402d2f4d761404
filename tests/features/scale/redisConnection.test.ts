import { openRedisConnection, parseRedisUrl } from '../../../src/features/scale/redisConnection';
import { ScaleConfigSchema } from '../../../src/features/scale/scaleConfig';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../../helpers/redisServer';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://localhost', { kind: 'tcp', host: 'localhost', port: 6379, tls: false, db: 0 }],
    ['redis://cache.internal:6380/3', { kind: 'tcp', host: 'cache.internal', port: 6380, tls: false, db: 3 }],
    ['rediss://user:p%40ss@10.0.0.5:7000', { kind: 'tcp', host: '10.0.0.5', port: 7000, tls: true, db: 0, username: 'user', password: 'p@ss' }],
    ['redis://:secret@[::1]:6379/1', { kind: 'tcp', host: '::1', port: 6379, tls: false, db: 1, password: 'secret' }],
    ['unix:///run/redis/redis.sock', { kind: 'socket', path: '/run/redis/redis.sock', db: 0 }],
    ['unix:///tmp/a%20b/redis.sock?db=2', { kind: 'socket', path: '/tmp/a b/redis.sock', db: 2 }],
  ])('%s', (url, endpoint) => {
    expect(parseRedisUrl(url)).toEqual({ ok: true, endpoint });
  });

  it.each([
    ['localhost:6379', 'is not a URL'],
    ['redis://a b', 'is not a URL'],
    ['http://localhost:6379', 'has the scheme "http:"'],
    ['redis://localhost/cache', 'has a path that is not a database number from 0 to 99'],
    ['unix://relative.sock', 'must name an absolute socket path (three slashes: unix:///run/redis.sock)'],
    ['unix:///tmp/r.sock?db=x', 'has a db that is not a number from 0 to 99'],
  ])('refuses %s', (url, why) => {
    expect(parseRedisUrl(url)).toEqual({
      ok: false,
      message: `Redis URL ${JSON.stringify(url)} ${why}. Use redis://[user:password@]host[:port][/db], rediss://… for TLS, or unix:///path/to/redis.sock[?db=N].`,
    });
  });

  it('the scale config section reports a bad URL with the accepted forms, and defaults the key prefix', () => {
    expect(ScaleConfigSchema.parse({}).redis).toEqual({ keyPrefix: 'toolhost:' });
    const result = ScaleConfigSchema.safeParse({ redis: { url: 'http://x' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^Redis URL "http:\/\/x" has the scheme "http:"\. Use redis:\/\//);
  });
});

describeWithRedis('openRedisConnection', () => {
  let server: RedisTestServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('connects to a real redis-server through a unix:// URL and selects the database it names', async () => {
    const first = openRedisConnection(`unix://${server.socket}?db=2`);
    const other = openRedisConnection(`unix://${server.socket}`);
    try {
      await first.set('key', 'in db 2');
      expect(await first.get('key')).toBe('in db 2');
      expect(await other.get('key')).toBeNull();
    } finally {
      first.disconnect();
      other.disconnect();
    }
  });
});
