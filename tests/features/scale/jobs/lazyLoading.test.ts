import { spawnSync } from 'node:child_process';
import * as nodePath from 'node:path';
import { makeTempDir, removeDir } from '../../../helpers/tempDir';

const PACKAGE = nodePath.resolve(__dirname, '../../../../dist/index.js');

/**
 * In a fresh node process: loads the package, builds an App with every builtin feature and an
 * agent with `config` whose host takes prompts (so its cron service is active), resolves its task
 * service, and prints which Redis modules are in require.cache.
 */
function redisModulesLoaded(config: object): string[] {
  const dir = makeTempDir();
  try {
    const script = `
      const { createApp, IAgentPromptInjection, IAgentTaskService } = require(${JSON.stringify(PACKAGE)});
      const app = createApp({ config: ${JSON.stringify(config)} });
      const agent = app.createAgent({ cwd: ${JSON.stringify(dir)}, dataDir: ${JSON.stringify(dir)}, overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue({ enqueue: () => 'queued' }) });
      agent.get(IAgentTaskService);
      const loaded = Object.keys(require.cache).map((f) => /[\\\\/]node_modules[\\\\/](ioredis|bullmq)[\\\\/]/.exec(f)?.[1]).filter(Boolean);
      process.stdout.write(JSON.stringify([...new Set(loaded)].sort()));
      process.exit(0);
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout) as string[];
  } finally {
    removeDir(dir);
  }
}

describe('the scale feature loads Redis clients only when configured', () => {
  test('without scale.redis.url no Redis module is loaded', () => {
    expect(redisModulesLoaded({})).toEqual([]);
  });

  test('with a Redis URL but local background tasks and cron only ioredis is loaded (for the state store), not bullmq', () => {
    expect(redisModulesLoaded({ scale: { redis: { url: 'redis://127.0.0.1:1' } } })).toEqual(['ioredis']);
  });

  test('with scale.jobs.backgroundTasks "queue" the task service loads ioredis and bullmq', () => {
    expect(redisModulesLoaded({ scale: { redis: { url: 'redis://127.0.0.1:1' }, jobs: { backgroundTasks: 'queue' } } })).toEqual(['bullmq', 'ioredis']);
  });

  test('with scale.jobs.cron "queue" the agent\'s cron service opens its queue with bullmq', () => {
    expect(redisModulesLoaded({ scale: { redis: { url: 'redis://127.0.0.1:1' }, jobs: { cron: 'queue' } } })).toEqual(['bullmq', 'ioredis']);
  });
});
