import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';
import { parseRedisUrl } from './redisConnection';

const RedisUrlSchema = z.string().superRefine((url, context) => {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) context.addIssue({ code: 'custom', message: parsed.message });
});

export const ScaleConfigSchema = z.strictObject({
  redis: z
    .strictObject({
      url: RedisUrlSchema.optional().describe(
        'The Redis server for state and background work shared by many processes: redis://[user:password@]host[:port][/db], rediss:// for TLS, or unix:///path/to/redis.sock. Unset: everything stays in this process and its data folder.',
      ),
      keyPrefix: z
        .string()
        .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'use 1–64 letters, digits, ":", "_" or "-"')
        .default('toolhost:')
        .describe('Prefix of every Redis key and BullMQ queue toolhost uses, so several deployments can share one server.'),
    })
    .prefault({}),
});
export const scaleConfig = defineConfigSection('scale', ScaleConfigSchema.prefault({}).describe('Serving past one process: Redis-backed state and BullMQ background work.'));
export type ScaleConfig = z.output<typeof ScaleConfigSchema>;
