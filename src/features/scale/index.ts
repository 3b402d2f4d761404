// The scale feature's public surface (`toolhost/features/scale`): Redis for state shared by many processes.
export { createScaleFeature } from './scaleFeature';
export { IScaleRedis } from './contract';
export { ScaleRedis } from './scaleRedis';
export { RedisAgentStateStore } from './redisAgentStateStore';
export { QueueCronTrigger, cronQueueName, type CronFireJobData, type QueueCronTriggerOptions } from './cron/queueCronTrigger';
export { scaleConfig, ScaleConfigSchema, type ScaleConfig } from './scaleConfig';
export { parseRedisUrl, openRedisConnection, redisOptions, loadIoredis, type RedisEndpoint, type ParsedRedisUrl } from './redisConnection';
