import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openRedisConnection } from '../../src/features/scale/redisConnection';
import { waitFor } from '../helpers/async';
import { CLI, cliEnv, runCliProcess, startCliProcess } from '../helpers/cliProcess';
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

describe('mcp serve --http --agent-id (stateful)', () => {
  test('each session\'s agent has the id, one session at a time: a second is refused with a sentence until the first ends', async () => {
    const cli = startCliProcess(['mcp', 'serve', '--http', '127.0.0.1:0', '--no-watch', '--agent-id', 'build-bot'], { cwd: ws });
    try {
      const port = await waitFor(
        () => {
          if (cli.child.exitCode !== null) throw new Error(`the server exited: ${cli.stderr()}`);
          const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(cli.stderr());
          return match ? Number(match[1]) : undefined;
        },
        { what: 'the address' },
      );
      expect(port).toBeGreaterThan(0);
      const open = async () => {
        const client = new Client({ name: 'agent-id-e2e', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
        await client.connect(transport);
        return { client, transport };
      };
      const first = await open();
      await waitFor(() => /session \S+ opened \(agent build-bot\)/.test(cli.stderr()), { what: 'the session log line' });
      await expect(open()).rejects.toThrow(/agent build-bot \(--agent-id\) is in use by another session; end that session first/);
      // The client ends its session (DELETE): its agent is disposed, and the id is free again.
      await first.transport.terminateSession();
      await first.client.close();
      const second = await waitFor(async () => open().catch(() => undefined), { what: `a new session once the first ended (${cli.stderr()})`, timeoutMs: 10_000 });
      await second.client.close();
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
      await cli.exit;
    }
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

  test('mcp serve over stdio keeps the agent\'s state under its --agent-id', async () => {
    fs.writeFileSync(nodePath.join(ws, 'toolhost.json'), JSON.stringify({ scale: { redis: { url: `unix://${redis.socket}`, keyPrefix: 'stdio:' } } }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--no-watch', '--agent-id', 'build-bot'], cwd: ws, env: cliEnv() as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'agent-id-stdio', version: '1.0.0' });
    await client.connect(transport);
    const redisClient = openRedisConnection(`unix://${redis.socket}`);
    try {
      const result = await client.callTool({ name: 'TodoList', arguments: { add: [{ title: 'Run the suite' }] } });
      expect(result.isError).toBeFalsy();
      expect(await redisClient.keys('stdio:state:*')).toEqual(['stdio:state:build-bot:todo']);
    } finally {
      await client.close();
      redisClient.disconnect();
    }
  });
});
