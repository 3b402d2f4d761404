import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../../../base/errors';
import { shellEnvironment } from '../../../base/shell/shellEnv';
import { type RunningShell, ShellProcess, type ShellProcessOptions } from '../../../base/shell/shellProcess';
import { formatDuration, randomBase36 } from '../../../base/strings';
import { createBwrapRuntime } from '../../../services/runtime/bwrapRuntime';
import type { SandboxConfig } from '../../../services/runtime/sandboxConfig';
import type { ISubagentJobHost, SubagentJobResult } from '../../../tools/agent/contract';
import { openRedisConnection } from '../redisConnection';
import { loadBullmq } from './bullmqModule';
import { type BashJobData, JOB_NAMES, type SubagentJobData, type TaskEnding, type TaskJobData, type TaskRef, TaskRecordStore, taskKeys } from './taskRecords';

export interface TaskWorkerOptions {
  readonly redisUrl: string;
  readonly keyPrefix: string;
  /** Jobs run at once. */
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly outputMaxBytes: number;
  readonly keepEndedS: number;
  /** bash.drainMs and bash.killGraceMs of the worker's configuration. */
  readonly drainMs: number;
  readonly killGraceMs: number;
  /** Config `sandbox` of the worker: "bwrap" runs every Bash task under bubblewrap (its agent's workspace roots writable). */
  readonly sandbox: SandboxConfig;
  /** Runs queued subagents (the worker's App); without it, subagent jobs fail with the reason. */
  readonly subagents?: ISubagentJobHost;
  /** Problems that do not stop the worker (a lost connection BullMQ retries): one line each. */
  readonly warn?: (message: string) => void;
}

/** Output is sent to Redis in pieces of at most this many bytes, at most every FLUSH_MS. */
const CHUNK_BYTES = 16 * 1024;
const FLUSH_MS = 50;
/** Unsent output past this pauses the command until Redis caught up. */
const PAUSE_BYTES = 1024 * 1024;

/** Why a task whose worker was lost ended, by job name. */
const LOST_WORKER: Record<string, string> = {
  [JOB_NAMES.process]:
    'The worker running it was lost (killed or crashed) before the task ended; it is not run again, since the command may have run in part. Its processes were stopped by the worker\'s watchdog.',
  [JOB_NAMES.agent]:
    'The worker running it was lost (killed or crashed) before the subagent ended; it is not run again, since it may have done part of its work. The processes it started were stopped by the worker\'s watchdog; resume it with Agent resume to continue.',
};

/** One task a worker runs. */
interface RunningTask {
  readonly ref: TaskRef;
  /** Ends the work: kills a command's process group, aborts a subagent. */
  readonly stop: (why: 'timeout' | 'stop') => void;
  ending?: { status: 'killed' | 'timed_out'; reason: string };
}

const isSubagentJob = (job: Job<TaskJobData>): job is Job<SubagentJobData> => job.name === JOB_NAMES.agent;

/**
 * A `toolhost worker`: takes background Bash tasks from the BullMQ queue, runs each in its own
 * process group (as the in-process task service does), streams the output into Redis and writes
 * how it ended. A stop request on the control channel kills the task's process tree. A job whose
 * worker was lost (its lock expired) is marked failed with the reason, never run a second time
 * (maxStalledCount 0, and the record's claim refuses a second run).
 */
export class TaskWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomBase36(4)}`;
  private readonly running = new Map<string, RunningTask>();
  private worker?: Worker<TaskJobData>;
  private readonly store: TaskRecordStore;
  private closing = false;

  private constructor(
    private readonly options: TaskWorkerOptions,
    private readonly redis: Redis,
    private readonly subscriber: Redis,
  ) {
    this.store = new TaskRecordStore(redis, taskKeys(options.keyPrefix), options.keepEndedS);
  }

  /** Whether this worker takes subagent jobs too (it has an ISubagentJobHost). */
  get runsSubagents(): boolean {
    return this.options.subagents !== undefined;
  }

  /** Connects (throws when Redis does not answer within `connectTimeoutMs`) and starts taking jobs. */
  static async start(options: TaskWorkerOptions, connectTimeoutMs = 5000): Promise<TaskWorker> {
    const { Worker } = loadBullmq();
    const connect = () => openRedisConnection(options.redisUrl, { maxRetriesPerRequest: null });
    await probe(options.redisUrl, connectTimeoutMs);
    // A configured sandbox that cannot work here stops the worker at once, never runs unsandboxed.
    if (options.sandbox.mode === 'bwrap') withSandbox(options.sandbox, [os.tmpdir()], process.cwd(), () => undefined);
    const host = new TaskWorker(options, connect(), connect());
    const keys = taskKeys(options.keyPrefix);
    host.subscriber.on('message', (_channel: string, message: string) => host.onControl(message));
    await host.subscriber.subscribe(keys.control);
    const worker = new Worker<TaskJobData>(keys.queueName, (job) => host.process(job), {
      connection: connect(),
      prefix: keys.queuePrefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      // A lost run is failed, never retried: the command may have done part of its work.
      maxStalledCount: 0,
    });
    // A job that stalled past the limit is failed by whichever worker next sees it.
    worker.on('failed', (job: Job<TaskJobData> | undefined, error: Error) => {
      if (!job) return;
      const reason = /stalled/i.test(error.message) ? LOST_WORKER[job.name] ?? LOST_WORKER[JOB_NAMES.process]! : `The job failed on the queue: ${error.message}`;
      void host.store.finish({ agentId: job.data.agentId, taskId: job.data.taskId }, { status: 'failed', stopReason: reason }).catch(() => undefined);
    });
    worker.on('error', (error: Error) => options.warn?.(`queue error (retrying): ${error.message}`));
    host.worker = worker;
    await worker.waitUntilReady();
    return host;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Stops taking jobs and waits for the running ones; after `graceMs` they are killed and end as
   * `killed` with the reason. Jobs not taken yet stay queued for other workers.
   */
  async close(graceMs: number, reason: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = this.worker?.close() ?? Promise.resolve();
    const timer = setTimeout(() => {
      for (const task of this.running.values()) this.end(task, 'killed', reason);
    }, graceMs);
    try {
      await closed;
    } finally {
      clearTimeout(timer);
      this.subscriber.disconnect();
      this.redis.disconnect();
    }
  }

  private onControl(message: string): void {
    let request: { id?: unknown; reason?: unknown };
    try {
      request = JSON.parse(message) as { id?: unknown; reason?: unknown };
    } catch {
      return;
    }
    const task = typeof request.id === 'string' ? this.running.get(request.id) : undefined;
    if (task) this.end(task, 'killed', typeof request.reason === 'string' ? request.reason : 'Stopped');
  }

  private end(task: RunningTask, status: 'killed' | 'timed_out', reason: string): void {
    task.ending ??= { status, reason };
    task.stop(status === 'timed_out' ? 'timeout' : 'stop');
  }

  /** Claims the job's record and runs it once; a record claimed before (its worker was lost) is failed, never run twice. */
  private async process(job: Job<TaskJobData>): Promise<void> {
    const data = job.data;
    const ref: TaskRef = { agentId: data.agentId, taskId: data.taskId };
    const claim = await this.store.claim(data.taskId, this.id);
    if (claim === 'running') {
      // Claimed before by a worker that is gone (the job came back): fail it, do not run it twice.
      await this.store.finish(ref, { status: 'failed', stopReason: LOST_WORKER[job.name] ?? LOST_WORKER[JOB_NAMES.process]! });
      return;
    }
    if (claim !== 'claimed') return; // stopped while queued, or expired
    await (isSubagentJob(job) ? this.runSubagent(ref, job.data) : this.runCommand(ref, job.data as BashJobData));
  }

  /** Registers a running task, honours a stop requested before this worker listened for it, and unregisters it when `work` settles. */
  private async tracked<T>(task: RunningTask, fields: Record<string, string>, work: () => Promise<T>): Promise<T> {
    this.running.set(task.ref.taskId, task);
    try {
      const stopRequested = await this.store.markStarted(task.ref, { ...fields, workerPid: String(process.pid) });
      if (stopRequested !== undefined) this.end(task, 'killed', stopRequested);
      return await work();
    } finally {
      this.running.delete(task.ref.taskId);
    }
  }

  private async runSubagent(ref: TaskRef, data: SubagentJobData): Promise<void> {
    const host = this.options.subagents;
    if (!host) {
      await this.store.finish(ref, { status: 'failed', stopReason: 'This toolhost worker cannot run subagents (it has no App to run them with); start it with `toolhost worker`.' });
      return;
    }
    const outbox = new OutputOutbox((chunk) => this.store.appendOutput(ref, chunk, this.options.outputMaxBytes), () => undefined);
    const controller = new AbortController();
    const task: RunningTask = { ref, stop: () => controller.abort(new Error(task.ending?.reason ?? 'stopped')) };
    await this.tracked(task, {}, async () => {
      let result: SubagentJobResult;
      try {
        result = await host.run(data.job, controller.signal, (text) => outbox.write(Buffer.from(text, 'utf8')));
      } catch (error) {
        await outbox.close();
        await this.store.finish(ref, { status: 'failed', stopReason: `The subagent could not run on the worker: ${errorMessage(error)}` });
        return;
      }
      await outbox.close();
      const { outcome } = result;
      const ending: TaskEnding = {
        status: task.ending?.status ?? (outcome.status === 'completed' ? 'completed' : 'failed'),
        ...(task.ending ? { stopReason: task.ending.reason } : outcome.error !== undefined ? { stopReason: outcome.error } : {}),
        result: JSON.stringify(result),
      };
      await this.store.finish(ref, withOutboxError(ending, outbox));
    });
  }

  private async runCommand(ref: TaskRef, data: BashJobData): Promise<void> {
    const roots = data.roots ?? [data.cwd];
    await withSandbox(this.options.sandbox, roots, data.cwd, async (start) => {
      const outbox = new OutputOutbox((chunk) => this.store.appendOutput(ref, chunk, this.options.outputMaxBytes), (paused) => (paused ? shell.pause() : shell.resume()));
      const shell = start({
        command: data.command,
        cwd: data.cwd,
        env: shellEnvironment(process.env, data.env),
        drainMs: this.options.drainMs,
        killGraceMs: this.options.killGraceMs,
        onData: (chunk) => outbox.write(chunk),
      });
      const task: RunningTask = { ref, stop: (why) => shell.kill(why) };
      await this.tracked(task, shell.pid !== undefined ? { pid: String(shell.pid) } : {}, async () => {
        const timer = data.timeoutMs === undefined ? undefined : setTimeout(() => this.end(task, 'timed_out', `Timed out after ${formatDuration(data.timeoutMs!)}`), data.timeoutMs);
        const exit = await shell.done;
        clearTimeout(timer);
        await outbox.close();
      const ending: TaskEnding =
        exit.spawnError !== undefined
          ? { status: 'failed', stopReason: `The command could not be started: ${exit.spawnError}` }
          : {
              status: task.ending?.status ?? (exit.exitCode === 0 ? 'completed' : 'failed'),
              exitCode: exit.exitCode,
              signal: exit.signal,
              forceKilled: exit.forceKilled,
              ...(task.ending ? { stopReason: task.ending.reason } : {}),
            };
        await this.store.finish(ref, withOutboxError(ending, outbox));
      });
    });
  }
}

/** The ending, with why output was lost when it could not all be sent. */
function withOutboxError(ending: TaskEnding, outbox: OutputOutbox): TaskEnding {
  return outbox.error === undefined ? ending : { ...ending, stopReason: [ending.stopReason, `Output could not be sent to Redis: ${outbox.error}`].filter(Boolean).join('; ') };
}

/**
 * Runs `work` with a way to start shells under the worker's `sandbox`: as they are ("none"), or
 * under bubblewrap with the task's workspace roots, `sandbox.writable` and a private TMPDIR
 * (removed afterwards) writable, as an agent's own sandbox does. Throws SandboxUnavailableError
 * when bubblewrap cannot run here.
 */
async function withSandbox<T>(sandbox: SandboxConfig, roots: readonly string[], cwd: string, work: (start: (options: ShellProcessOptions) => RunningShell) => T | Promise<T>): Promise<T> {
  if (sandbox.mode === 'none') return work((options) => new ShellProcess(options));
  const tempDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-worker-sandbox-'));
  try {
    const runtime = createBwrapRuntime({
      writable: [...roots, ...sandbox.writable.map((dir) => nodePath.resolve(cwd, dir))],
      tempDir,
      network: sandbox.network,
      ...(sandbox.bwrapPath !== undefined ? { bwrapPath: sandbox.bwrapPath } : {}),
    });
    return await work((options) => runtime.process!.startShell(options));
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

/** Batches a command's output into pieces for Redis, one write at a time, pausing the command when far behind. */
class OutputOutbox {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer?: NodeJS.Timeout;
  private sending: Promise<void> = Promise.resolve();
  private paused = false;
  error?: string;

  constructor(
    private readonly send: (chunk: Buffer) => Promise<void>,
    private readonly onBackpressure: (paused: boolean) => void,
  ) {}

  write(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= PAUSE_BYTES && !this.paused) {
      this.paused = true;
      this.onBackpressure(true);
    }
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  async close(): Promise<void> {
    this.flush();
    await this.sending;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingBytes === 0) return;
    const data = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.sending = this.sending.then(async () => {
      for (let at = 0; at < data.length; at += CHUNK_BYTES) {
        try {
          await this.send(data.subarray(at, at + CHUNK_BYTES));
        } catch (error) {
          this.error ??= errorMessage(error);
        }
      }
      if (this.paused && this.pendingBytes < PAUSE_BYTES) {
        this.paused = false;
        this.onBackpressure(false);
      }
    });
  }
}

/** Connects once and PINGs, so an unreachable server is a clear error instead of endless retries. */
async function probe(url: string, timeoutMs: number): Promise<void> {
  const connection = openRedisConnection(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  connection.on('error', () => undefined);
  try {
    await connection.connect();
    await connection.ping();
  } catch (error) {
    throw new Error(`Redis at ${url} did not answer (${errorMessage(error)}). Start redis-server there, or point scale.redis.url (or --redis) at a running one.`, { cause: error });
  } finally {
    connection.disconnect();
  }
}
