import type { Redis, RedisOptions } from 'ioredis';
import { inject, injectable, preDestroy } from 'inversify';
import { IConfigService } from '../../services/config/config';
import type { IScaleRedis } from './contract';
import { openRedisConnection } from './redisConnection';
import { scaleConfig } from './scaleConfig';

/** How long a closing connection may take to say QUIT before it is cut. */
const QUIT_WITHIN_MS = 1000;

async function close(connection: Redis): Promise<void> {
  if (connection.status !== 'ready') return connection.disconnect();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([connection.quit().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, QUIT_WITHIN_MS)))]);
  } finally {
    clearTimeout(timer);
    connection.disconnect();
  }
}

/** IScaleRedis: connections opened on first use from `scale.redis`, every one closed when the App is disposed. */
@injectable()
export class ScaleRedis implements IScaleRedis {
  readonly enabled: boolean;
  readonly keyPrefix: string;
  private readonly url: string | undefined;
  private shared: Redis | undefined;
  private readonly opened = new Set<Redis>();
  private disposed = false;

  constructor(@inject(IConfigService) config: IConfigService) {
    const { redis } = config.section(scaleConfig);
    this.url = redis.url;
    this.enabled = redis.url !== undefined;
    this.keyPrefix = redis.keyPrefix;
  }

  connection(): Redis {
    this.shared ??= this.openConnection();
    return this.shared;
  }

  openConnection(extra: RedisOptions = {}): Redis {
    if (this.disposed) throw new Error('The App has been disposed; its Redis connections are closed.');
    if (this.url === undefined) throw new Error('Redis is not configured: set scale.redis.url (e.g. "redis://localhost:6379") to use it.');
    const connection = openRedisConnection(this.url, extra);
    // Commands fail with the reason; without a listener ioredis would also print every reconnect error.
    connection.on('error', () => undefined);
    this.opened.add(connection);
    connection.once('end', () => this.opened.delete(connection));
    return connection;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    this.disposed = true;
    const connections = [...this.opened];
    this.opened.clear();
    this.shared = undefined;
    await Promise.all(connections.map(close));
  }
}
