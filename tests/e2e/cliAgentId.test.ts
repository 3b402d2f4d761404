import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { runCliProcess } from '../helpers/cliProcess';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../helpers/redisServer';
import { makeTempDir, removeDir } from '../helpers/tempDir';

let ws: string;
beforeEach(() => {
  ws = makeTempDir();
});
afterEach(() => removeDir(ws));

const batch = (calls: unknown[]) => JSON.stringify(calls);

describe('--agent-id', () => {
  test('an id that is not one (a "/", a leading "-", empty, too long) is a usage error (exit 2) with the rule, for run and mcp serve', async () => {
    for (const bad of ['team/bot', '-bot', '', 'x'.repeat(65)]) {
      const run = await runCliProcess(['run', '--agent-id', bad], { cwd: ws, input: '[]' });
      expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(`--agent-id: ${JSON.stringify(bad)} is not an agent id; use 1–64 letters, digits, "_" and "-", starting with a letter or a digit`)]);
    }
    const serve = await runCliProcess(['mcp', 'serve', '--agent-id', 'a:b'], { cwd: ws, input: '' });
    expect([serve.code, serve.stderr]).toEqual([2, expect.stringContaining('--agent-id: "a:b" is not an agent id')]);
    const stateless = await runCliProcess(['mcp', 'serve', '--http', '127.0.0.1:0', '--stateless', '--data-dir', ws, '--agent-id', 'bot'], { cwd: ws, input: '' });
    expect([stateless.code, stateless.stderr]).toEqual([2, expect.stringContaining('--agent-id is for stdio and stateful --http; with --stateless the client names each agent in the path')]);
  });
});

describeWithRedis('--agent-id on one Redis', () => {
  let redis: RedisTestServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });

  test('two run processes with the same --agent-id share the agent\'s state (a cron job made by one is listed by the other); another id does not', async () => {
    fs.writeFileSync(nodePath.join(ws, 'toolhost.json'), JSON.stringify({ scale: { redis: { url: `unix://${redis.socket}`, keyPrefix: 'cli:' } } }));
    const created = await runCliProcess(['run', '--yes', '--json', '--agent-id', 'build-bot'], {
      cwd: ws,
      input: batch([{ name: 'CronCreate', arguments: { cron: '0 9 * * *', timezone: 'UTC', prompt: 'Check the build.' } }]),
    });
    expect([created.code, JSON.parse(created.stdout).results[0].isError]).toEqual([0, false]);
    const list = (agentId?: string) =>
      runCliProcess(['run', '--json', ...(agentId !== undefined ? ['--agent-id', agentId] : [])], { cwd: ws, input: batch([{ name: 'CronList', arguments: {} }]) });
    const same = await list('build-bot');
    expect(JSON.parse(same.stdout).results[0].output).toContain('id: cron-1');
    const other = await list('other-bot');
    expect(JSON.parse(other.stdout).results[0].output).not.toContain('cron-1');
    // Without --agent-id the CLI's agent is agent-1, as before.
    const first = await list();
    expect(JSON.parse(first.stdout).results[0].output).not.toContain('cron-1');
  });
});
