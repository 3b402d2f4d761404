import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Redis } from 'ioredis';
import { openRedisConnection } from '../../../src/features/scale/redisConnection';
import { RedisAgentStateStore } from '../../../src/features/scale/redisAgentStateStore';
import {
  AgentStateError,
  type AgentStateOwner,
  type AgentStateWarning,
  type IAgentStateStore,
  MAX_AGENT_STATE_BYTES,
  updateAgentState,
} from '../../../src/services/agentState/agentState';
import { agentStateFilePath, FileAgentStateStore } from '../../../src/services/agentState/fileAgentStateStore';
import { describeWithRedis, redisServerAvailable, type RedisTestServer, startRedisServer } from '../../helpers/redisServer';
import { makeTempDir, removeDir } from '../../helpers/tempDir';

/**
 * The IAgentStateStore contract, the same cases against the file store and the Redis store. Each
 * backend says how to plant a stored value that is not state and how to read what was set aside.
 */

const CORRUPTIONS = ['not JSON', 'a bad version', 'no value', 'too large'] as const;
type Corruption = (typeof CORRUPTIONS)[number];

interface Backend {
  readonly store: IAgentStateStore;
  /** Stores something under `key` that is not state; returns it as `kept` will read it. */
  plant(owner: AgentStateOwner, key: string, corruption: Corruption): Promise<unknown>;
  /** What was set aside at `keptAt`. */
  kept(keptAt: string): Promise<unknown>;
}

interface BackendFactory {
  readonly name: string;
  readonly describe: jest.Describe;
  /** A fresh store for one test (an empty folder or an empty database). */
  open(): Promise<Backend>;
  /** The message's tail: where the value was kept. */
  readonly keptPattern: RegExp;
}

const FILE_CONTENT: Record<Corruption, () => string> = {
  'not JSON': () => '{"version": 1, "value": ',
  'a bad version': () => '{"version": 0, "value": 1}',
  'no value': () => '{"version": 3}',
  'too large': () => `{"version": 1, "value": "${'x'.repeat(MAX_AGENT_STATE_BYTES + 64)}"}`,
};
const REDIS_FIELDS: Record<Corruption, () => Record<string, string>> = {
  'not JSON': () => ({ version: '1', value: '{"a":' }),
  'a bad version': () => ({ version: '0', value: '1' }),
  'no value': () => ({ version: '3' }),
  'too large': () => ({ version: '1', value: JSON.stringify('x'.repeat(MAX_AGENT_STATE_BYTES)) }),
};

let dataRoot = '';
beforeEach(() => {
  dataRoot = makeTempDir('toolhost-state-');
});
afterEach(() => removeDir(dataRoot));

const fileBackend: BackendFactory = {
  name: 'FileAgentStateStore',
  describe,
  keptPattern: /the file was kept as .+\.corrupt-/,
  open: async () => ({
    store: new FileAgentStateStore(),
    plant: async (owner, key, corruption) => {
      const file = agentStateFilePath(owner, key);
      fs.mkdirSync(nodePath.dirname(file), { recursive: true });
      const content = FILE_CONTENT[corruption]();
      fs.writeFileSync(file, content);
      return content;
    },
    kept: async (keptAt) => fs.readFileSync(keptAt, 'utf8'),
  }),
};

let server: RedisTestServer | undefined;
const connections: Redis[] = [];
let database = 0;
/** A connection to this file's server, closed after the file. */
function connect(db: number): Redis {
  const connection = openRedisConnection(`unix://${server!.socket}?db=${db}`);
  connections.push(connection);
  return connection;
}

const redisBackend: BackendFactory = {
  name: 'RedisAgentStateStore',
  describe: describeWithRedis,
  keptPattern: /the stored value was kept as Redis key toolhost:state-corrupt:a1:\w+:/,
  open: async () => {
    // Each test its own database, so cases cannot see each other's keys (16 databases; cases wrap around after a flush).
    const db = database++ % 16;
    const redis = connect(db);
    await redis.flushdb();
    const store = new RedisAgentStateStore(redis, 'toolhost:');
    return {
      store,
      plant: async (owner, key, corruption) => {
        const fields = REDIS_FIELDS[corruption]();
        await redis.hset(store.redisKey(owner, key), fields);
        return fields;
      },
      kept: async (keptAt) => redis.hgetall(keptAt),
    };
  },
};

const owner = (): AgentStateOwner => ({ agentId: 'a1', dataDir: nodePath.join(dataRoot, 'data') });

// One server for the file, started only where there is one (describeWithRedis skips or fails the cases that need it).
beforeAll(async () => {
  if (redisServerAvailable()) server = await startRedisServer();
});
afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await server?.stop();
});

describe.each([fileBackend, redisBackend])('the IAgentStateStore contract: $name', (factory) => {
  factory.describe(factory.name, () => {
    test('get of nothing, put counts versions from 1, get returns value and version', async () => {
      const { store } = await factory.open();
      expect(await store.get(owner(), 'todo')).toBeUndefined();
      expect(await store.put(owner(), 'todo', { items: ['x'] })).toBe(1);
      expect(await store.put(owner(), 'todo', { items: ['x', 'y'] })).toBe(2);
      expect(await store.get(owner(), 'todo')).toEqual({ value: { items: ['x', 'y'] }, version: 2 });
      expect(await store.get({ agentId: 'a2', dataDir: nodePath.join(dataRoot, 'other') }, 'todo')).toBeUndefined();
    });

    test('compare-and-set writes only over the expected version; of racing writers one wins', async () => {
      const { store } = await factory.open();
      expect(await store.compareAndSet(owner(), 'goal', 1, 'x')).toEqual({ ok: false });
      expect(await store.compareAndSet(owner(), 'goal', 0, 'first')).toEqual({ ok: true, version: 1 });
      const race = await Promise.all([store.compareAndSet(owner(), 'goal', 1, 'a'), store.compareAndSet(owner(), 'goal', 1, 'b')]);
      expect(race).toEqual([{ ok: true, version: 2 }, { ok: false, current: { value: 'a', version: 2 } }]);
      expect(await store.compareAndSet(owner(), 'goal', 0, 'stale')).toEqual({ ok: false, current: { value: 'a', version: 2 } });
      expect(await store.get(owner(), 'goal')).toEqual({ value: 'a', version: 2 });
    });

    test('many concurrent read-change-writes with retry: every increment lands, none is lost', async () => {
      const { store } = await factory.open();
      const conflicts = countConflicts(store);
      const results = await Promise.all(Array.from({ length: 12 }, () => increment(store, owner())));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await store.get(owner(), 'count')).toEqual({ value: 12, version: 12 });
      expect(conflicts.count).toBeGreaterThan(0);
    });

    test('nested keys are separate values', async () => {
      const { store } = await factory.open();
      await store.put(owner(), 'user/question', [1]);
      await store.put(owner(), 'user', 'top');
      expect(await store.get(owner(), 'user/question')).toEqual({ value: [1], version: 1 });
      expect(await store.get(owner(), 'user')).toEqual({ value: 'top', version: 1 });
    });

    test.each(CORRUPTIONS)('a stored value that is not state (%s) warns once, reads as empty, is kept aside and never overwritten', async (corruption) => {
      const { store, plant, kept } = await factory.open();
      const warnings: AgentStateWarning[] = [];
      store.onWarning((w) => warnings.push(w));
      const planted = await plant(owner(), 'todo', corruption);
      expect(await store.get(owner(), 'todo')).toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/^State "todo" of agent a1 was unreadable \(.+\); it starts empty and /);
      expect(warnings[0]!.message).toMatch(factory.keptPattern);
      expect(await kept(warnings[0]!.keptAt!)).toEqual(planted);
      expect(await store.put(owner(), 'todo', 'fresh')).toBe(1);
      expect(await store.get(owner(), 'todo')).toEqual({ value: 'fresh', version: 1 });
      expect(await kept(warnings[0]!.keptAt!)).toEqual(planted);
      expect(warnings).toHaveLength(1);
    });

    test.each(CORRUPTIONS)('compare-and-set over a value that is not state (%s) sets it aside and writes as over nothing', async (corruption) => {
      const { store, plant, kept } = await factory.open();
      const warnings: AgentStateWarning[] = [];
      store.onWarning((w) => warnings.push(w));
      const planted = await plant(owner(), 'goal', corruption);
      expect(await store.compareAndSet(owner(), 'goal', 0, 'new')).toEqual({ ok: true, version: 1 });
      expect(warnings).toHaveLength(1);
      expect(await kept(warnings[0]!.keptAt!)).toEqual(planted);
      expect(await store.get(owner(), 'goal')).toEqual({ value: 'new', version: 1 });
    });

    test.each(CORRUPTIONS)('put over a value that is not state (%s) sets it aside and starts again at version 1', async (corruption) => {
      const { store, plant, kept } = await factory.open();
      const warnings: AgentStateWarning[] = [];
      store.onWarning((w) => warnings.push(w));
      const planted = await plant(owner(), 'todo', corruption);
      expect(await store.put(owner(), 'todo', ['new'])).toBe(1);
      expect(warnings).toHaveLength(1);
      expect(await kept(warnings[0]!.keptAt!)).toEqual(planted);
      expect(await store.get(owner(), 'todo')).toEqual({ value: ['new'], version: 1 });
    });

    test("a value the reader's check rejects is set aside like a corrupt one; without a check it reads as stored", async () => {
      const { store } = await factory.open();
      const warnings: AgentStateWarning[] = [];
      store.onWarning((w) => warnings.push(w));
      await store.put(owner(), 'mode', 'sideways');
      const check = (value: unknown) => (value === 'plan' || value === 'normal' ? undefined : 'it is not a mode');
      expect(await store.get(owner(), 'mode', { check: () => undefined })).toEqual({ value: 'sideways', version: 1 });
      expect(await store.get(owner(), 'mode', { check })).toBeUndefined();
      expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^State "mode" of agent a1 was unreadable \(it is not a mode\)/)]);
      const { version } = await updateAgentState(store, owner(), 'mode', () => ({ value: 'plan', result: null }), { check });
      expect(version).toBe(1);
      expect(await store.get(owner(), 'mode', { check })).toEqual({ value: 'plan', version: 1 });
    });

    test('bad keys and values are refused with what is allowed; nothing is written', async () => {
      const { store } = await factory.open();
      for (const key of ['', 'Todo', '../x', 'a//b', 'a/b/c/d/e', '/abs', 'a:b', 'x'.repeat(65)]) {
        await expect(store.put(owner(), key, 1)).rejects.toThrow(new RegExp(`^State key ${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is invalid: use 1–4`));
      }
      await expect(store.get(owner(), '../etc')).rejects.toThrow(AgentStateError);
      await expect(store.put(owner(), 'big', 'x'.repeat(MAX_AGENT_STATE_BYTES))).rejects.toThrow(/^State "big" is \d+ bytes of JSON; at most 1048576 are kept/);
      await expect(store.put(owner(), 'fn', (() => 1) as never)).rejects.toThrow(/^State "fn" is not JSON: store null/);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(store.compareAndSet(owner(), 'cyc', 0, cyclic as never)).rejects.toThrow(/^State "cyc" is not JSON: /);
      for (const key of ['big', 'fn', 'cyc']) expect(await store.get(owner(), key)).toBeUndefined();
    });
  });
});

/** Counts the compare-and-sets of `store` that lost to another writer. */
function countConflicts(store: IAgentStateStore): { count: number } {
  const counter = { count: 0 };
  const compareAndSet = store.compareAndSet.bind(store);
  store.compareAndSet = async (...args) => {
    const result = await compareAndSet(...args);
    if (!result.ok) counter.count++;
    return result;
  };
  return counter;
}

/** One read-change-write of `count` with retry; the value it wrote. */
async function increment(store: IAgentStateStore, who: AgentStateOwner): Promise<number> {
  const { result } = await updateAgentState(
    store,
    who,
    'count',
    (current) => {
      const next = ((current?.value as number | undefined) ?? 0) + 1;
      return { value: next, result: next };
    },
    { maxAttempts: 1000 },
  );
  return result;
}

describeWithRedis('RedisAgentStateStore across connections and processes', () => {
  test('a hash per agent key with the version and the JSON text; no other key is written', async () => {
    const redis = connect(15);
    await redis.flushdb();
    const store = new RedisAgentStateStore(redis, 'tenant-a:');
    await store.put(owner(), 'user/question', { q: 1 });
    await store.put(owner(), 'user/question', { q: 2 });
    expect(await redis.keys('*')).toEqual(['tenant-a:state:a1:user/question']);
    expect(await redis.hgetall('tenant-a:state:a1:user/question')).toEqual({ version: '2', value: '{"q":2}' });
    // Another prefix is another deployment on the same server.
    expect(await new RedisAgentStateStore(redis, 'tenant-b:').get(owner(), 'user/question')).toBeUndefined();
  });

  test('scripts run by their SHA1 are sent again after the server forgot them (a restart, SCRIPT FLUSH)', async () => {
    const redis = connect(15);
    await redis.flushdb();
    const store = new RedisAgentStateStore(redis, 'toolhost:');
    expect(await store.put(owner(), 'todo', 1)).toBe(1);
    await redis.script('FLUSH');
    expect(await store.compareAndSet(owner(), 'todo', 1, 2)).toEqual({ ok: true, version: 2 });
    expect(await store.get(owner(), 'todo')).toEqual({ value: 2, version: 2 });
  });

  test('a key of another Redis type is not state: warned about, renamed aside, read as empty', async () => {
    const redis = connect(15);
    await redis.flushdb();
    const store = new RedisAgentStateStore(redis, 'toolhost:');
    const warnings: AgentStateWarning[] = [];
    store.onWarning((w) => warnings.push(w));
    await redis.set(store.redisKey(owner(), 'todo'), 'a string');
    expect(await store.put(owner(), 'todo', [1])).toBe(1);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^State "todo" of agent a1 was unreadable \(it is a Redis string, not a state hash \{version, value\}\)/)]);
    expect(await redis.get(warnings[0]!.keptAt!)).toBe('a string');
  });

  test('concurrent compare-and-set from two connections with retry: all increments land, none lost', async () => {
    const [first, second] = [connect(14), connect(14)];
    await first.flushdb();
    const stores = [new RedisAgentStateStore(first, 'toolhost:'), new RedisAgentStateStore(second, 'toolhost:')];
    const conflicts = stores.map(countConflicts);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => increment(stores[i % 2]!, owner())));
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await stores[1]!.get(owner(), 'count')).toEqual({ value: 40, version: 40 });
    // The race happened: both connections lost compare-and-sets and retried.
    expect(conflicts.map((c) => c.count > 0)).toEqual([true, true]);
  });

  test('concurrent compare-and-set from two processes with retry: all increments land, none lost', async () => {
    const redis = connect(13);
    await redis.flushdb();
    const store = new RedisAgentStateStore(redis, 'toolhost:');
    const dist = nodePath.resolve(__dirname, '../../../dist');
    // The other process: the built library, its own connection, the same increments.
    const script = `
      const { openRedisConnection, RedisAgentStateStore } = require(${JSON.stringify(`${dist}/features/scale/index.js`)});
      const { updateAgentState } = require(${JSON.stringify(`${dist}/services/agentState/agentState.js`)});
      const redis = openRedisConnection(process.argv[1]);
      const store = new RedisAgentStateStore(redis, 'toolhost:');
      const owner = { agentId: 'a1', dataDir: '/unused' };
      const one = () => updateAgentState(store, owner, 'count', (c) => ({ value: (c ? c.value : 0) + 1, result: (c ? c.value : 0) + 1 }), { maxAttempts: 1000 });
      Promise.all(Array.from({ length: 25 }, one)).then((r) => { process.stdout.write(JSON.stringify(r.map((x) => x.result))); redis.disconnect(); });
    `;
    const child = spawn(process.execPath, ['-e', script, `unix://${server!.socket}?db=13`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const mine = await Promise.all(Array.from({ length: 25 }, () => increment(store, owner())));
    expect([await exited, stderr]).toEqual([0, '']);
    const theirs = JSON.parse(stdout) as number[];
    expect([...mine, ...theirs].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await store.get(owner(), 'count')).toEqual({ value: 50, version: 50 });
  });
});
