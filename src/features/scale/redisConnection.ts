import type { Redis, RedisOptions } from 'ioredis';

/** Where a Redis URL points: a TCP host or a Unix socket, with what ioredis needs to connect. */
export type RedisEndpoint =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number; readonly tls: boolean; readonly db: number; readonly username?: string; readonly password?: string }
  | { readonly kind: 'socket'; readonly path: string; readonly db: number };

export type ParsedRedisUrl = { readonly ok: true; readonly endpoint: RedisEndpoint } | { readonly ok: false; readonly message: string };

const URL_FORMS = 'redis://[user:password@]host[:port][/db], rediss://… for TLS, or unix:///path/to/redis.sock[?db=N]';

function parseDb(text: string | null): number | undefined {
  if (text === null || text === '') return 0;
  if (!/^\d{1,2}$/.test(text)) return undefined;
  return Number(text);
}

/** Parses a Redis URL without connecting (pure; the config schema uses it). */
export function parseRedisUrl(url: string): ParsedRedisUrl {
  const bad = (why: string): ParsedRedisUrl => ({ ok: false, message: `Redis URL ${JSON.stringify(url)} ${why}. Use ${URL_FORMS}.` });
  // "host:6379" parses as a URL with the scheme "host:"; it is a missing scheme.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return bad('is not a URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return bad('is not a URL');
  }
  if (parsed.protocol === 'unix:') {
    const db = parseDb(parsed.searchParams.get('db'));
    if (db === undefined) return bad('has a db that is not a number from 0 to 99');
    const socketPath = decodeURIComponent(parsed.pathname);
    if (parsed.host !== '' || !socketPath.startsWith('/')) return bad('must name an absolute socket path (three slashes: unix:///run/redis.sock)');
    return { ok: true, endpoint: { kind: 'socket', path: socketPath, db } };
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return bad(`has the scheme "${parsed.protocol}"`);
  if (parsed.hostname === '') return bad('names no host');
  const db = parseDb(parsed.pathname.replace(/^\//, ''));
  if (db === undefined) return bad('has a path that is not a database number from 0 to 99');
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  return {
    ok: true,
    endpoint: {
      kind: 'tcp',
      host: parsed.hostname.replace(/^\[|\]$/g, ''),
      port,
      tls: parsed.protocol === 'rediss:',
      db,
      ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
      ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    },
  };
}

/** The ioredis constructor, required on first use so the core library never loads a Redis client. */
export function loadIoredis(): typeof import('ioredis').Redis {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('ioredis') as typeof import('ioredis')).Redis;
  } catch (error) {
    throw new Error(`scale.redis.url is set, but the optional package ioredis could not be loaded (${(error as Error).message}). Install it next to toolhost: npm install ioredis bullmq`, { cause: error });
  }
}

/** ioredis options for an endpoint; `extra` is merged last (BullMQ needs `maxRetriesPerRequest: null` on its connections). */
export function redisOptions(endpoint: RedisEndpoint, extra: RedisOptions = {}): RedisOptions {
  const base: RedisOptions =
    endpoint.kind === 'socket'
      ? { path: endpoint.path, db: endpoint.db }
      : {
          host: endpoint.host,
          port: endpoint.port,
          db: endpoint.db,
          ...(endpoint.tls ? { tls: {} } : {}),
          ...(endpoint.username === undefined ? {} : { username: endpoint.username }),
          ...(endpoint.password === undefined ? {} : { password: endpoint.password }),
        };
  return { ...base, lazyConnect: false, ...extra };
}

/** Opens a connection to the Redis a URL names; throws with the accepted forms when the URL is bad. */
export function openRedisConnection(url: string, extra: RedisOptions = {}): Redis {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new Error(parsed.message);
  const IORedis = loadIoredis();
  return new IORedis(redisOptions(parsed.endpoint, extra));
}
