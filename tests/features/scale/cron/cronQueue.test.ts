import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { IAgentCronService } from '../../../../src/features/cron/contract';
import { createCronFeature } from '../../../../src/features/cron/cronFeature';
import { cronQueueName } from '../../../../src/features/scale/cron/queueCronTrigger';
import { openRedisConnection } from '../../../../src/features/scale/redisConnection';
import { ScaleConfigSchema } from '../../../../src/features/scale/scaleConfig';
import { createScaleFeature } from '../../../../src/features/scale/scaleFeature';
import { IAgentPromptInjection, type IAgentPromptInjection as PromptInjection, type PromptInjectionRequest, type PromptInjectionResult } from '../../../../src/services/promptInjection/promptInjection';
import { outputText } from '../../../../src/tool/contract';
import { type Harness, useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { approve, FakeHost } from '../../../helpers/fakeHost';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../../../helpers/redisServer';

// Real seconds go by: every-second jobs on a real redis-server.
jest.setTimeout(60_000);

const AGENT_ID = 'shared';

/** A host's prompt queue that takes every prompt at once (the agent is idle). */
class PromptLog implements PromptInjection {
  readonly delivered: PromptInjectionRequest[] = [];
  enqueue(request: PromptInjectionRequest): PromptInjectionResult {
    this.delivered.push(request);
    return 'queued';
  }
  /** The occurrences delivered (scheduled_for, ms), in order. */
  get occurrences(): number[] {
    return this.delivered.map((d) => Date.parse(/scheduled_for="([^"]+)"/.exec(d.text)![1]!));
  }
}

interface Instance extends Harness {
  readonly prompts: PromptLog;
  readonly cron: IAgentCronService;
}

describeWithRedis('cron jobs as BullMQ job schedulers (scale.jobs.cron "queue")', () => {
  let redis: RedisTestServer;
  let url: string;
  let client: Redis;
  let prefixCount = 0;
  /** A key prefix of its own per test: queues and state never mix between tests. */
  let keyPrefix = '';
  const fx = useAgent({ tempDataDir: true });

  beforeAll(async () => {
    redis = await startRedisServer();
    url = `unix://${redis.socket}`;
    client = openRedisConnection(url, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });
  beforeEach(() => {
    keyPrefix = `c${++prefixCount}:`;
  });

  /** A process hosting agent `shared`: its own App, on the shared Redis, with its own prompt queue. */
  function instance(): Instance {
    const prompts = new PromptLog();
    const h = fx.open({
      id: AGENT_ID,
      features: [createCronFeature(), createScaleFeature()],
      config: { scale: { redis: { url, keyPrefix }, jobs: { cron: 'queue', lockDurationMs: 1000, stalledIntervalMs: 500 } }, cron: { allowSeconds: true } },
      interactions: new FakeHost({ approval: approve }),
      overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue(prompts),
    });
    return { ...h, prompts, cron: h.agent.get(IAgentCronService) };
  }

  /** The agent's queue as BullMQ itself sees it. */
  async function withQueue<T>(use: (queue: Queue) => Promise<T>): Promise<T> {
    const queue = new Queue(cronQueueName(AGENT_ID), { connection: client, prefix: `${keyPrefix}bull` });
    try {
      return await use(queue);
    } finally {
      await queue.close();
    }
  }

  const schedulers = () => withQueue((queue) => queue.getJobSchedulers());

  async function create(h: Instance, args: Record<string, unknown>): Promise<string> {
    const result = await h.call('CronCreate', { timezone: 'UTC', prompt: 'Check the build.', ...args });
    expect(result.isError).toBe(false);
    return /^id: (cron-\d+)$/m.exec(outputText(result.output))![1]!;
  }

  const allOccurrences = (...instances: Instance[]) => instances.flatMap((i) => i.prompts.occurrences).sort((a, b) => a - b);
  const stored = async (h: Instance) => (await h.cron.list()).map((j) => ({ id: j.id, fires: j.fires }));

  test('two Apps hosting one agent id deliver each occurrence of an every-second job exactly once between them; CronList agrees on both', async () => {
    const a = instance();
    const b = instance();
    await Promise.all([a.cron.settled(), b.cron.settled()]);
    const id = await create(a, { cron: '* * * * * *' });
    await waitFor(() => allOccurrences(a, b).length >= 4, { what: 'four fires', timeoutMs: 15_000 });
    const seen = allOccurrences(a, b);
    // One delivery per occurrence (no second), and every second since the first is there.
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 1; i < seen.length; i++) expect(seen[i]! - seen[i - 1]!).toBe(1000);
    expect(a.prompts.delivered.concat(b.prompts.delivered).every((d) => !/missed=/.test(d.text))).toBe(true);
    // Counted in the shared state: both instances list the same fires (settled, read again).
    await a.dispose();
    const after = allOccurrences(b);
    const listed = await stored(b);
    expect(listed).toEqual([{ id, fires: expect.any(Number) }]);
    expect(listed[0]!.fires).toBeGreaterThanOrEqual(seen.length);
    // A process that stops: the other keeps firing every occurrence.
    await waitFor(() => b.prompts.occurrences.filter((t) => t > Math.max(...seen, ...after)).length >= 2, { what: 'two fires on the remaining instance', timeoutMs: 15_000 });
    const all = allOccurrences(a, b);
    expect(new Set(all).size).toBe(all.length);
    expect(await schedulers()).toEqual([expect.objectContaining({ key: id, pattern: '* * * * * *', tz: 'UTC' })]);
  });

  test('arming again (a second instance, a restart) leaves exactly one scheduler per job, unchanged', async () => {
    const a = instance();
    await a.cron.settled();
    const id = await create(a, { cron: '0 9 * * *' });
    const [first] = await schedulers();
    expect(first).toEqual(expect.objectContaining({ key: id, pattern: '0 9 * * *', tz: 'UTC', endDate: expect.any(Number) }));
    const b = instance();
    await b.cron.settled();
    await a.dispose();
    const restarted = instance();
    await restarted.cron.settled();
    expect(await schedulers()).toEqual([first]);
    // Upserting the same scheduler twice, as BullMQ promises, also leaves one.
    await withQueue(async (queue) => {
      await queue.upsertJobScheduler(id, { pattern: '0 9 * * *', tz: 'UTC' }, { name: 'cron-fire', data: { jobId: id } });
      await queue.upsertJobScheduler(id, { pattern: '0 9 * * *', tz: 'UTC' }, { name: 'cron-fire', data: { jobId: id } });
      expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual([id]);
    });
  });

  test('CronDelete on one instance removes the scheduler of a job another created: it fires nowhere again', async () => {
    const a = instance();
    const b = instance();
    await Promise.all([a.cron.settled(), b.cron.settled()]);
    const id = await create(a, { cron: '* * * * * *' });
    await waitFor(() => allOccurrences(a, b).length >= 1, { what: 'a fire', timeoutMs: 15_000 });
    const deleted = await b.call('CronDelete', { id });
    expect([deleted.isError, outputText(deleted.output)]).toEqual([false, expect.stringContaining(`id: ${id}`)]);
    expect(await schedulers()).toEqual([]);
    const count = allOccurrences(a, b).length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // At most one fire that was already being handled when the job went.
    expect(allOccurrences(a, b).length).toBeLessThanOrEqual(count + 1);
    expect(await a.cron.list()).toEqual([]);
  });

  test('fires due while no process hosted the agent are delivered once, with their count, by the first to start (catch_up one)', async () => {
    const a = instance();
    await a.cron.settled();
    await create(a, { cron: '*/2 * * * * *' });
    await waitFor(() => a.prompts.delivered.length >= 1, { what: 'a fire', timeoutMs: 15_000 });
    await a.dispose();
    // Two occurrences go by with no process hosting the agent.
    await new Promise((resolve) => setTimeout(resolve, 4200));
    const b = instance();
    const c = instance();
    await waitFor(() => allOccurrences(b, c).length >= 2, { what: 'the catch-up and the next fire', timeoutMs: 15_000 });
    const deliveries = [...b.prompts.delivered, ...c.prompts.delivered];
    const missed = deliveries.filter((d) => /missed="\d+"/.test(d.text));
    expect(missed).toHaveLength(1);
    expect(Number(/missed="(\d+)"/.exec(missed[0]!.text)![1])).toBeGreaterThanOrEqual(2);
    const all = allOccurrences(a, b, c);
    expect(new Set(all).size).toBe(all.length);
  });

  test('"queue" without scale.redis.url is refused with what to set; the default is "local"', () => {
    expect(ScaleConfigSchema.parse({}).jobs.cron).toBe('local');
    const parsed = ScaleConfigSchema.safeParse({ jobs: { cron: 'queue' } });
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: ['jobs', 'cron'], message: '"queue" needs a Redis server: set scale.redis.url as well, or use "local"' })]);
    expect(ScaleConfigSchema.safeParse({ redis: { url }, jobs: { cron: 'queue' } }).success).toBe(true);
  });
});
