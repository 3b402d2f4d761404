import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { callTool, text, useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { type StartedCli, startCliProcess } from '../../../helpers/cliProcess';
import { describeWithBwrap } from '../../../helpers/installed';
import { killQuietly } from '../../../helpers/processes';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../../../helpers/redisServer';
import { makeTempDir, removeDir } from '../../../helpers/tempDir';

jest.setTimeout(90_000);

describeWithRedis('background Bash tasks on a worker with sandbox "bwrap"', () => {
  describeWithBwrap('under bubblewrap', () => {
    let redis: RedisTestServer;
    let url: string;
    let configDir: string;
    let outside: string;
    let worker: StartedCli | undefined;
    const fx = useAgent({ builtins: true, tempDataDir: true });

    beforeAll(async () => {
      redis = await startRedisServer();
      url = `unix://${redis.socket}`;
      configDir = makeTempDir('toolhost-worker-config-');
      outside = makeTempDir('toolhost-outside-');
    });
    afterAll(async () => {
      await redis.stop();
      removeDir(configDir);
      removeDir(outside);
    });
    afterEach(async () => {
      if (worker?.child.pid !== undefined) killQuietly(worker.child.pid);
      await worker?.exit;
    });

    test('the worker runs the task under bubblewrap: it writes the agent\'s workspace, never outside it', async () => {
      const scale = { redis: { url, keyPrefix: 'sandboxed:' }, jobs: { backgroundTasks: 'queue' } } as const;
      // The worker sandboxes; the agent itself does not (its own Bash would run unsandboxed).
      fs.writeFileSync(nodePath.join(configDir, 'toolhost.json'), JSON.stringify({ scale, sandbox: 'bwrap' }));
      const started = startCliProcess(['worker', '--config', nodePath.join(configDir, 'toolhost.json')], { cwd: configDir });
      worker = started;
      await waitFor(() => /taking background tasks/.test(started.stderr()) || started.child.exitCode !== null, { what: 'the worker to take jobs', timeoutMs: 15_000 });
      expect(started.stderr()).toContain('Bash under bubblewrap');
      const h = fx.open({ id: 'agent-1', config: { scale } });
      const inside = nodePath.join(fx.dir, 'inside.txt');
      const escaped = nodePath.join(outside, 'escaped.txt');
      const result = await callTool(h.agent, 'Bash', { command: `echo in > ${inside}; echo out > ${escaped}; echo "exit=$?"`, run_in_background: true });
      const taskId = /^task_id: (bash-[0-9a-z]{8})$/m.exec(text(result))![1]!;
      expect(text(await callTool(h.agent, 'WaitFor', { task_ids: [taskId], timeout: 30 }))).toMatch(/^wait_status: completed/);
      const output = text(await callTool(h.agent, 'TaskOutput', { task_id: taskId }));
      expect(output).toMatch(/Read-only file system|Permission denied|No such file or directory/);
      expect(output).toContain('exit=1');
      expect(fs.readFileSync(inside, 'utf8')).toBe('in\n');
      expect(fs.existsSync(escaped)).toBe(false);
    });
  });
});
