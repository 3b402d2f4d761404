// The scale feature's public surface (`toolhost/features/scale`): serving past one process on Redis.
export { scaleConfig, ScaleConfigSchema, type ScaleConfig } from './scaleConfig';
export { parseRedisUrl, openRedisConnection, redisOptions, loadIoredis, type RedisEndpoint, type ParsedRedisUrl } from './redisConnection';
