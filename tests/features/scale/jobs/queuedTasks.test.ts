import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Redis } from 'ioredis';
import { openRedisConnection } from '../../../../src/features/scale/redisConnection';
import { IAgentTaskService, type TaskInfo } from '../../../../src/tools/task/contract';
import { callTool, type Harness, text, useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { runCliProcess, type StartedCli, startCliProcess } from '../../../helpers/cliProcess';
import { isAlive, killQuietly, readPidFile } from '../../../helpers/processes';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../../../helpers/redisServer';
import { makeTempDir, removeDir } from '../../../helpers/tempDir';

/** Short locks so a killed worker's job is noticed within about a second. */
const JOBS = { backgroundTasks: 'queue', lockDurationMs: 1000, stalledIntervalMs: 500, outputMaxBytes: 65_536 } as const;

// Each test starts real `toolhost worker` processes (a few seconds each on a loaded machine).
jest.setTimeout(90_000);

describeWithRedis('background Bash tasks as BullMQ jobs on toolhost worker processes', () => {
  let redis: RedisTestServer;
  let url: string;
  let client: Redis;
  let configDir: string;
  let prefixCount = 0;
  /** A key prefix of its own per test: queues and records never mix between tests. */
  let keyPrefix = '';
  const workers: StartedCli[] = [];
  const fx = useAgent({ builtins: true, tempDataDir: true });

  beforeAll(async () => {
    redis = await startRedisServer();
    url = `unix://${redis.socket}`;
    client = openRedisConnection(url);
    configDir = makeTempDir('toolhost-worker-config-');
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
    removeDir(configDir);
  });
  beforeEach(() => {
    keyPrefix = `t${++prefixCount}:`;
    fs.writeFileSync(nodePath.join(configDir, 'toolhost.json'), JSON.stringify({ scale: { redis: { url, keyPrefix }, jobs: JOBS } }));
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) {
      if (worker.child.pid !== undefined) killQuietly(worker.child.pid);
      await worker.exit;
    }
  });

  /** A `toolhost worker` process with this test's config; resolves once it takes jobs. */
  async function startWorker(concurrency = 2): Promise<StartedCli> {
    const worker = startCliProcess(['worker', '--config', nodePath.join(configDir, 'toolhost.json'), '--concurrency', String(concurrency)], { cwd: configDir });
    workers.push(worker);
    await waitFor(() => /taking background tasks/.test(worker.stderr()) || worker.child.exitCode !== null, { what: 'the worker to take jobs', timeoutMs: 15_000 });
    if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.stderr()}`);
    return worker;
  }

  /** An instance of agent `agent-1` (its own App) on the shared Redis. */
  function instance(): Harness {
    return fx.open({ id: 'agent-1', config: { scale: { redis: { url, keyPrefix }, jobs: JOBS } } });
  }

  async function startTask(harness: Harness, command: string): Promise<string> {
    const result = await callTool(harness.agent, 'Bash', { command, run_in_background: true });
    expect(result.isError).toBeUndefined();
    return /^task_id: (bash-[0-9a-z]{8})$/m.exec(text(result))![1]!;
  }

  const tasksOf = (harness: Harness) => harness.agent.get(IAgentTaskService);

  async function seen(harness: Harness, id: string, until: (task: TaskInfo) => boolean = () => true, timeoutMs = 15_000): Promise<TaskInfo> {
    let task: TaskInfo | undefined;
    await waitFor(
      () => {
        task = tasksOf(harness).get(id);
        return task !== undefined && until(task);
      },
      { what: `task ${id} as wanted`, timeoutMs },
    );
    return task!;
  }

  test('a task queued by one instance runs on a worker; another instance lists it, waits for it and reads its output', async () => {
    const worker = await startWorker();
    const a = instance();
    const b = instance();
    const id = await startTask(a, 'echo "parent=$PPID"; sleep 0.3; echo done');
    await seen(b, id);
    const waited = text(await callTool(b.agent, 'WaitFor', { task_ids: [id], timeout: 30 }));
    expect(waited).toMatch(/^wait_status: completed/);
    const output = text(await callTool(b.agent, 'TaskOutput', { task_id: id }));
    // The shell's parent is the worker process, not this one.
    expect(output).toContain(`parent=${worker.child.pid}\ndone`);
    const listed = text(await callTool(b.agent, 'TaskList', {}));
    expect(listed).toContain(id);
    expect(listed).toMatch(/tasks: 1 \(0 running, 1 finished\)/);
    expect(tasksOf(a).get(id)).toMatchObject({ status: 'completed', exitCode: 0, outputPath: `redis:${keyPrefix}task:${id}:out` });
  });

  test('TaskStop on another instance reaches the worker and kills the process tree of the task', async () => {
    await startWorker();
    const a = instance();
    const b = instance();
    const pidFile = nodePath.join(fx.dir, 'child.pid');
    const id = await startTask(a, `sleep 60 & echo $! > ${pidFile}; echo started; wait`);
    const child = await readPidFile(pidFile);
    await seen(b, id, (t) => t.outputBytes > 0);
    const stopped = text(await callTool(b.agent, 'TaskStop', { task_id: id, reason: 'not needed' }));
    expect(stopped).toMatch(/killed/);
    expect(tasksOf(b).get(id)).toMatchObject({ status: 'killed', stopReason: 'not needed' });
    expect(isAlive(child)).toBe(false);
    await seen(a, id, (t) => t.status === 'killed');
  });

  test('an agent\'s queued task service uses the App\'s Redis connection, plus one subscriber of its own', async () => {
    const clients = async () => String(await client.client('LIST')).trim().split('\n').length;
    const before = await clients();
    const a = instance();
    await startTask(a, 'true');
    await tasksOf(a).refresh();
    // The App's shared connection (state, records, queue) and the task events subscriber: no more.
    expect((await clients()) - before).toBe(2);
  });

  test('a task still queued (no worker yet) is stopped at once and never runs', async () => {
    const a = instance();
    const marker = nodePath.join(fx.dir, 'ran');
    const id = await startTask(a, `touch ${marker}`);
    const after = await tasksOf(a).stop(id, 'changed my mind');
    expect(after).toMatchObject({ status: 'killed', stopReason: 'changed my mind' });
    await startWorker();
    const later = await startTask(a, 'true');
    await tasksOf(a).wait([later], { mode: 'all', timeoutMs: 15_000 });
    expect(fs.existsSync(marker)).toBe(false);
  });

  test('output in Redis is bounded: the tail is kept, the dropped part counted', async () => {
    await startWorker();
    const a = instance();
    // 400,000 bytes: 20,000 numbered lines of 20 bytes.
    const id = await startTask(a, `seq -f '%019g' 1 20000`);
    const result = await tasksOf(a).wait([id], { mode: 'all', timeoutMs: 30_000 });
    expect(result.tasks[0]).toMatchObject({ status: 'completed', outputBytes: 400_000, outputCapped: true });
    const kept = Number(await client.hget(`${keyPrefix}task:${id}`, 'keptBytes'));
    expect(kept).toBeLessThanOrEqual(JOBS.outputMaxBytes);
    expect(Number(await client.hget(`${keyPrefix}task:${id}`, 'keptFrom'))).toBe(400_000 - kept);
    const tail = await tasksOf(a).readOutput(id, { tailLines: 2, maxBytes: 10_000 });
    expect(tail).toMatchObject({ text: '0000000000000019999\n0000000000000020000\n', end: 400_000, totalBytes: 400_000, source: 'memory' });
    // Reading from the start begins where the kept part begins.
    const head = await tasksOf(a).readOutput(id, { offset: 0, maxBytes: 40 });
    expect(head.start).toBe(400_000 - kept);
  });

  test('a worker SIGKILLed mid-job: the task is marked failed with the reason, its processes are gone, and it is not run again', async () => {
    const first = await startWorker(1);
    const second = await startWorker(1);
    const a = instance();
    const pidFile = nodePath.join(fx.dir, 'shell.pid');
    const runs = nodePath.join(fx.dir, 'runs');
    // The runner is written before the pid file the test waits for, so it is there when that is.
    const id = await startTask(a, `echo "$PPID" >> ${runs}; echo $$ > ${pidFile}; sleep 60`);
    const shell = await readPidFile(pidFile);
    const runner = Number(fs.readFileSync(runs, 'utf8').trim());
    const [victim, survivor] = runner === first.child.pid ? [first, second] : [second, first];
    expect(victim.child.pid).toBe(runner);
    process.kill(runner, 'SIGKILL');
    const ended = await seen(a, id, (t) => t.status !== 'running', 20_000);
    expect(ended.status).toBe('failed');
    expect(ended.stopReason).toMatch(/^The worker running it was lost \(killed or crashed\)/);
    await waitFor(() => !isAlive(shell), { what: 'the orphaned shell to be gone', timeoutMs: 10_000 });
    // Exactly one run, and the surviving worker still takes new jobs.
    expect(fs.readFileSync(runs, 'utf8').trim().split('\n')).toEqual([String(runner)]);
    const next = await startTask(a, 'echo "$PPID"');
    await tasksOf(a).wait([next], { mode: 'all', timeoutMs: 15_000 });
    expect((await tasksOf(a).readOutput(next, { maxBytes: 100 })).text).toBe(`${survivor.child.pid}\n`);
  });

  test('SIGTERM: the worker takes no new job, lets the running one finish, and exits', async () => {
    const worker = await startWorker(1);
    const a = instance();
    const id = await startTask(a, 'sleep 0.5; echo finished');
    await seen(a, id, (t) => t.pid !== undefined);
    worker.child.kill('SIGTERM');
    const exit = await worker.exit;
    expect(exit.code).toBe(143);
    expect(worker.stderr()).toMatch(/SIGTERM: taking no new jobs; waiting up to 60 s for 1 running/);
    expect(await seen(a, id, (t) => t.status !== 'running')).toMatchObject({ status: 'completed' });
  });

  test('the worker exits 2 with what to do when Redis does not answer or none is configured', async () => {
    const dir = makeTempDir();
    try {
      const unreachable = await runCliProcess(['worker', '--redis', `unix://${dir}/none.sock`], { cwd: dir });
      expect(unreachable.code).toBe(2);
      expect(unreachable.stderr).toMatch(new RegExp(`Redis at unix://${dir}/none.sock did not answer \\(.*\\)\\. Start redis-server there, or point scale.redis.url \\(or --redis\\) at a running one\\.`));
      const none = await runCliProcess(['worker'], { cwd: dir });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('No Redis server to take jobs from: set scale.redis.url in defaults, or pass --redis');
      const bad = await runCliProcess(['worker', '--redis', 'localhost:6379'], { cwd: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--redis: Redis URL "localhost:6379" is not a URL.');
    } finally {
      removeDir(dir);
    }
  });
});
