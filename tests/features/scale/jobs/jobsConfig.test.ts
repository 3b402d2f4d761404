import { ScaleConfigSchema } from '../../../../src/features/scale/scaleConfig';

describe('scale.jobs', () => {
  test('defaults: background tasks, subagents and cron stay local', () => {
    expect(ScaleConfigSchema.parse({}).jobs).toEqual({ backgroundTasks: 'local', subagents: 'local', cron: 'local', outputMaxBytes: 1_048_576, lockDurationMs: 30_000, stalledIntervalMs: 30_000, keepEndedTasksS: 86_400 });
  });

  test('"queue" without scale.redis.url is refused with what to set', () => {
    const parsed = ScaleConfigSchema.safeParse({ jobs: { backgroundTasks: 'queue' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({ path: ['jobs', 'backgroundTasks'], message: '"queue" needs a Redis server: set scale.redis.url as well, or use "local"' }),
    ]);
    expect(ScaleConfigSchema.safeParse({ redis: { url: 'unix:///run/redis.sock' }, jobs: { backgroundTasks: 'queue' } }).success).toBe(true);
  });

  test('subagents "queue" without scale.redis.url is refused with what to set', () => {
    const parsed = ScaleConfigSchema.safeParse({ jobs: { subagents: 'queue' } });
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({ path: ['jobs', 'subagents'], message: '"queue" needs a Redis server: set scale.redis.url as well, or use "local"' }),
    ]);
    expect(ScaleConfigSchema.safeParse({ jobs: { subagents: 'nowhere' } }).success).toBe(false);
  });

  test('an output cap under 64 KiB is refused', () => {
    expect(ScaleConfigSchema.safeParse({ jobs: { outputMaxBytes: 1000 } }).success).toBe(false);
  });
});
