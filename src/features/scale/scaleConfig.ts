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
  jobs: z
    .strictObject({
      backgroundTasks: z
        .enum(['local', 'queue'])
        .default('local')
        .describe(
          'Where background Bash tasks (run_in_background) run: "local", in this process; "queue", as BullMQ jobs on `toolhost worker` processes (needs scale.redis.url).',
        ),
      subagents: z
        .enum(['local', 'queue'])
        .default('local')
        .describe(
          'Where background subagents (Agent run_in_background) and AgentSwarm items run: "local", in this process; "queue", as BullMQ jobs on `toolhost worker` processes (needs scale.redis.url, and workers with the same toolhost.json, subagentRunner included, and the workspace at the same path).',
        ),
      cron: z
        .enum(['local', 'queue'])
        .default('local')
        .describe(
          'How cron jobs (CronCreate) fire: "local", on this process\'s timer; "queue", as BullMQ job schedulers shared by every process that hosts the agent (same agent id and Redis), so each occurrence fires in exactly one of them (needs scale.redis.url).',
        ),
      outputMaxBytes: z
        .number()
        .int()
        .min(65_536)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024)
        .describe('Bytes of a queued task\'s output kept in Redis; beyond it the oldest output is dropped (and counted), the latest kept.'),
      lockDurationMs: z.number().int().min(200).default(30_000).describe('How long a worker\'s lock on a job lasts without renewal; a worker that stops renewing it (killed, hung) loses the job after this.'),
      stalledIntervalMs: z.number().int().min(200).default(30_000).describe('How often workers look for jobs whose worker was lost; such a task is marked failed with the reason, never run again.'),
      keepEndedTasksS: z.number().int().min(60).default(86_400).describe('Seconds an ended task\'s record and output stay in Redis.'),
    })
    .prefault({}),
}).superRefine((scale, context) => {
  for (const key of ['backgroundTasks', 'subagents'] as const) {
    if (scale.jobs[key] === 'queue' && scale.redis.url === undefined) {
      context.addIssue({ code: 'custom', path: ['jobs', key], message: '"queue" needs a Redis server: set scale.redis.url as well, or use "local"' });
    }
  }
  if (scale.jobs.cron === 'queue' && scale.redis.url === undefined) {
    context.addIssue({ code: 'custom', path: ['jobs', 'cron'], message: '"queue" needs a Redis server: set scale.redis.url as well, or use "local"' });
  }
});
export const scaleConfig = defineConfigSection('scale', ScaleConfigSchema.prefault({}).describe('Serving past one process: Redis-backed state and BullMQ background work.'));
export type ScaleConfig = z.output<typeof ScaleConfigSchema>;

/** The BullMQ prefix of every toolhost queue (task jobs, cron fires) under a `scale.redis.keyPrefix`. */
export function bullQueuePrefix(keyPrefix: string): string {
  return `${keyPrefix}bull`;
}
