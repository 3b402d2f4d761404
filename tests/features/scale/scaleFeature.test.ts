import { spawn } from 'node:child_process';
import * as nodePath from 'node:path';
import type { Redis } from 'ioredis';
import { IScaleRedis } from '../../../src/features/scale/contract';
import { RedisAgentStateStore } from '../../../src/features/scale/redisAgentStateStore';
import { openRedisConnection } from '../../../src/features/scale/redisConnection';
import { createScaleFeature } from '../../../src/features/scale/scaleFeature';
import { createTodoFeature } from '../../../src/features/todo/todoFeature';
import { createApp } from '../../../src/scopes/appScope';
import { IAgentStateStore } from '../../../src/services/agentState/agentState';
import { FileAgentStateStore } from '../../../src/services/agentState/fileAgentStateStore';
import { describeWithRedis, redisServerAvailable, type RedisTestServer, startRedisServer } from '../../helpers/redisServer';
import { makeTempDir, removeDir } from '../../helpers/tempDir';

const DIST = nodePath.resolve(__dirname, '../../../dist');

let server: RedisTestServer | undefined;
let observer: Redis | undefined;
let dir = '';
beforeAll(async () => {
  if (!redisServerAvailable()) return;
  server = await startRedisServer();
  observer = openRedisConnection(`unix://${server.socket}`);
});
afterAll(async () => {
  observer?.disconnect();
  await server?.stop();
});
beforeEach(() => {
  dir = makeTempDir('toolhost-scale-');
});
afterEach(() => removeDir(dir));

const redisUrl = () => `unix://${server!.socket}`;

/**
 * Runs a child process on the built library: an App with every builtin feature and `config`, an
 * agent `id` in `dir`, one TodoList call; prints its output and the ioredis/bullmq modules loaded.
 */
function runChild(config: object, id: string, args: object): Promise<{ readonly output: string; readonly loaded: string[] }> {
  const script = `
    const { createApp } = require(${JSON.stringify(`${DIST}/index.js`)});
    const [config, id, cwd, args] = JSON.parse(process.argv[1]);
    const app = createApp({ config });
    const agent = app.createAgent({ id, cwd, dataDir: require('node:path').join(cwd, 'data-' + process.pid) });
    agent.executor.execute([{ id: 'c1', name: 'TodoList', arguments: JSON.stringify(args) }]).then(async ([result]) => {
      await app.dispose();
      const loaded = Object.keys(require.cache).filter((file) => /[\\\\/]node_modules[\\\\/](ioredis|bullmq)[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify({ output: result.output, loaded }));
    });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, JSON.stringify([config, id, dir, args])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      // It exits by itself: a connection left open would keep it running until the test times out.
      if (code === 0 && stderr === '') resolve(JSON.parse(stdout) as { output: string; loaded: string[] });
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

/** The server's clients other than the observer, waiting up to a second for closing ones to go. */
async function otherClients(): Promise<number> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const count = ((await observer!.client('LIST')) as string).trim().split('\n').length - 1;
    if (count === 0 || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the scale feature without scale.redis.url', () => {
  test('keeps the file store and loads no Redis client, even after an agent used its state', async () => {
    const app = createApp({ features: [createScaleFeature()] });
    expect(app.get(IAgentStateStore)).toBeInstanceOf(FileAgentStateStore);
    expect(app.get(IScaleRedis).enabled).toBe(false);
    expect(() => app.get(IScaleRedis).connection()).toThrow('Redis is not configured: set scale.redis.url (e.g. "redis://localhost:6379") to use it.');
    await app.dispose();
    // A fresh process: jest's module registry is not require.cache.
    const child = await runChild({}, 'main', { add: [{ title: 'local' }] });
    expect(child).toEqual({ output: 'todos: 1 (1 pending)\n\n[pending] t1 local', loaded: [] });
  });

  test('a bad URL is a configuration error with the accepted forms', () => {
    expect(() => createApp({ features: [createScaleFeature()], config: { scale: { redis: { url: 'localhost:6379' } } } })).toThrow(
      /scale\.redis\.url: Redis URL "localhost:6379" is not a URL\. Use redis:\/\/\[user:password@\]host\[:port\]\[\/db\], rediss:\/\/… for TLS, or unix:\/\/\/path/,
    );
  });
});

describeWithRedis('the scale feature with scale.redis.url', () => {
  test('binds the Redis store in place of the default, over one shared connection closed with the App', async () => {
    const app = createApp({ features: [createScaleFeature()], config: { scale: { redis: { url: redisUrl(), keyPrefix: 'feature-test:' } } } });
    const store = app.get(IAgentStateStore);
    expect(store).toBeInstanceOf(RedisAgentStateStore);
    expect(app.get(IAgentStateStore)).toBe(store);
    const scale = app.get(IScaleRedis);
    expect(scale.connection()).toBe(scale.connection());
    await store.put({ agentId: 'x', dataDir: dir }, 'todo', [1]);
    expect(await observer!.hgetall('feature-test:state:x:todo')).toEqual({ version: '1', value: '[1]' });
    const worker = scale.openConnection({ maxRetriesPerRequest: null });
    await worker.ping();
    expect(await otherClients()).toBe(2);
    await app.dispose();
    expect(await otherClients()).toBe(0);
    expect(worker.status).toBe('end');
    expect(() => scale.openConnection()).toThrow('The App has been disposed; its Redis connections are closed.');
  });

  test('a store the host bound stays; nothing connects until something needs Redis', async () => {
    const own = new FileAgentStateStore();
    const app = createApp({
      features: [createScaleFeature()],
      config: { scale: { redis: { url: redisUrl() } } },
      overrides: (container) => container.rebind(IAgentStateStore).toConstantValue(own),
    });
    expect(app.get(IAgentStateStore)).toBe(own);
    expect(await otherClients()).toBe(0);
    await app.dispose();
  });

  test('two Apps in two processes on one Redis see one state: a todo list written by one agent is read by the agent with its id in the other', async () => {
    const config = { scale: { redis: { url: redisUrl(), keyPrefix: 'shared-test:' } } };
    const first = await runChild(config, 'planner', { add: [{ title: 'written by process one' }] });
    expect(first.output).toBe('todos: 1 (1 pending)\n\n[pending] t1 written by process one');
    expect(first.loaded.some((file) => file.includes('/ioredis/'))).toBe(true);
    // This process, another data directory: the state is the agent's, not the folder's.
    const app = createApp({ features: [createScaleFeature(), createTodoFeature()], config });
    const agent = app.createAgent({ id: 'planner', cwd: dir, dataDir: nodePath.join(dir, 'here') });
    const [here] = await agent.executor.execute([{ id: 'c1', name: 'TodoList', arguments: JSON.stringify({ update: [{ id: 't1', status: 'in_progress' }] }) }]);
    await app.dispose();
    expect(here!.output).toBe('todos: 1 (1 in progress)\n\n[in_progress] t1 written by process one');
    const third = await runChild(config, 'planner', { add: [{ title: 'added by process three' }] });
    expect(third.output).toBe('todos: 2 (1 in progress, 1 pending)\n\n[in_progress] t1 written by process one\n[pending] t2 added by process three');
    expect((await runChild(config, 'someone-else', {})).output).toBe('todos: 0\n\nThe list is empty; add items with add or todos.');
  });
});
