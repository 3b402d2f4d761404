import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { type IAgentTaskService, IAgentTaskService as TaskServiceId, isTerminalStatus } from '../src/tools/task/contract';
import { startRedisServer } from '../tests/helpers/redisProcess';
import { benchDir, buildCli, CLI, fmt, nowMs, table } from './util';

const JOBS = Number(process.env.TOOLHOST_BENCH_QUEUE_JOBS ?? 1000);
const WORKERS = 4;
/** Jobs per worker at once; the in-process run keeps as many running (WORKERS × this). */
const WORKER_CONCURRENCY = 2;
const ROUNDS = 3;
/** Tasks of the untimed first round of each mode (workers and this process warm up). */
const WARMUP_JOBS = 100;
const COMMAND = 'true';

/**
 * 1,000 background `true` tasks through BullMQ on 4 `toolhost worker` processes against the same
 * tasks run by the in-process task service with as many running at once (8), paired: the two
 * alternate, ROUNDS rounds each after an untimed warm-up round of each, in one run. The figures are
 * the ratios of the best and of the median rounds (aim: ≤ 2); every round is printed.
 */
export async function queueBench(): Promise<void> {
  buildCli();
  const redis = await startRedisServer();
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'queue-'));
  const url = `unix://${redis.socket}`;
  const configFile = nodePath.join(dir, 'toolhost.json');
  const workers: ChildProcess[] = [];
  try {
    fs.writeFileSync(configFile, JSON.stringify({ scale: { redis: { url } } }));
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker(configFile, dir));
    await runTasks(dir, 'local', url, -1, WARMUP_JOBS);
    await runTasks(dir, 'queue', url, -1, WARMUP_JOBS);
    const local: number[] = [];
    const queued: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      local.push(await runTasks(dir, 'local', url, round, JOBS));
      queued.push(await runTasks(dir, 'queue', url, round, JOBS));
    }
    const best = (xs: number[]) => Math.min(...xs);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`\n## Background tasks: ${JOBS} \`${COMMAND}\` tasks, in process (${WORKERS * WORKER_CONCURRENCY} at once) vs BullMQ on ${WORKERS} workers × ${WORKER_CONCURRENCY}, ${ROUNDS} alternating rounds`);
    console.log(
      table(
        ['run', 'rounds (ms)', 'best (ms)', 'tasks/s'],
        [
          ['in-process task service', local.map((x) => fmt(x, 0)).join(', '), fmt(best(local), 0), fmt((JOBS * 1000) / best(local), 0)],
          ['BullMQ, 4 toolhost workers', queued.map((x) => fmt(x, 0)).join(', '), fmt(best(queued), 0), fmt((JOBS * 1000) / best(queued), 0)],
        ],
      ),
    );
    console.log(`ratio queue / in-process (best of each): ${fmt(best(queued) / best(local))}, (median of each): ${fmt(median(queued) / median(local))}, per round: ${queued.map((q, i) => fmt(q / local[i]!)).join(', ')} (aim: at most 2)`);
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
    await Promise.all(workers.map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once('exit', r)) : undefined)));
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function startWorker(configFile: string, cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'worker', '--config', configFile, '--concurrency', String(WORKER_CONCURRENCY)], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('taking background tasks')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`toolhost worker exited (${code}): ${stderr}`)));
  });
}

/** Starts JOBS tasks through the agent's task service and waits until all ended; milliseconds. */
async function runTasks(dir: string, mode: 'local' | 'queue', url: string, round: number, jobs: number): Promise<number> {
  const app = createApp({
    features: builtinFeatures(),
    config: {
      // In process at most 8 run at once (the cap); queued, the workers bound it and the agent queues them all.
      tasks: { maxRunning: mode === 'local' ? WORKERS * WORKER_CONCURRENCY : JOBS },
      scale: { redis: { url }, jobs: { backgroundTasks: mode } },
    },
  });
  const agent = app.createAgent({ id: `bench-${mode}-${round}`, cwd: dir, dataDir: nodePath.join(dir, `${mode}-${round}`) });
  const tasks = agent.get(TaskServiceId);
  try {
    const t = nowMs();
    await (mode === 'local' ? runPooled(tasks, dir, jobs) : runQueued(tasks, dir, jobs));
    const elapsed = nowMs() - t;
    const failed = tasks.list().filter((task) => task.status !== 'completed');
    if (failed.length > 0) throw new Error(`${failed.length} tasks did not complete, e.g. ${JSON.stringify(failed[0])}`);
    return elapsed;
  } finally {
    await app.dispose();
  }
}

const start = (tasks: IAgentTaskService, dir: string) => tasks.startProcess({ command: COMMAND, cwd: dir, description: 'bench', env: process.env });

/** Keeps the cap of tasks running, starting the next as one ends. */
async function runPooled(tasks: IAgentTaskService, dir: string, jobs: number): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: WORKERS * WORKER_CONCURRENCY }, async () => {
      while (started < jobs) {
        started++;
        const task = start(tasks, dir);
        await tasks.wait([task.id], { mode: 'all', timeoutMs: 60_000 });
      }
    }),
  );
}

async function runQueued(tasks: IAgentTaskService, dir: string, jobs: number): Promise<void> {
  const ids = Array.from({ length: jobs }, () => start(tasks, dir).id);
  const result = await tasks.wait(ids, { mode: 'all', timeoutMs: 300_000 });
  if (result.timedOut || !result.tasks.every((task) => isTerminalStatus(task.status))) throw new Error('the queued tasks did not all end within 5 minutes');
}
