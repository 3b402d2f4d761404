import type { Job, JobSchedulerJson, Queue, RepeatOptions, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../../../base/errors';
import type { CronJobSpec, CronTriggerHandlers, ICronTrigger } from '../../cron/contract';

/** What a fire job carries: the cron job it is an occurrence of. */
export interface CronFireJobData {
  readonly jobId: string;
}

/** The BullMQ queue of one agent's cron fires (queue names may not hold ":"; encoding keeps distinct ids distinct). */
export function cronQueueName(agentId: string): string {
  return `cron-${encodeURIComponent(agentId)}`;
}

/** What the trigger needs, opened by its factory: bullmq's classes are required only in queue mode. */
export interface QueueCronTriggerOptions {
  readonly agentId: string;
  /** `<keyPrefix>bull`, the prefix of every toolhost queue. */
  readonly queuePrefix: string;
  readonly bullmq: Pick<typeof import('bullmq'), 'Queue' | 'Worker'>;
  /** The App's shared connection, for the queue's plain commands. */
  readonly connection: Redis;
  /** A connection of the worker's own (it blocks); closed with the trigger. */
  openWorkerConnection(): Redis;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
}

/** The scheduler's repeat options for a job: its expression and zone, ending at its expiry; a one-shot: once, at its occurrence. */
function repeatOf(job: CronJobSpec, at: number): Omit<RepeatOptions, 'key' | 'prevMillis'> {
  return job.recurring
    ? { pattern: job.cron, tz: job.timezone, ...(job.expiresAt !== undefined ? { endDate: job.expiresAt } : {}) }
    : { pattern: job.cron, tz: job.timezone, endDate: at, limit: 1 };
}

function sameRepeat(scheduler: JobSchedulerJson | undefined, repeat: Omit<RepeatOptions, 'key' | 'prevMillis'>): boolean {
  return (
    scheduler !== undefined &&
    scheduler.pattern === repeat.pattern &&
    scheduler.tz === repeat.tz &&
    scheduler.endDate === repeat.endDate &&
    scheduler.limit === repeat.limit
  );
}

/**
 * ICronTrigger on BullMQ: each cron job of the agent is one job scheduler (id: the job's id) on
 * the agent's queue `cron-<agentId>`, and every process hosting the agent runs a Worker on that
 * queue, so each occurrence is one BullMQ job that one of them takes and hands to its cron
 * service. The schedulers' occurrences come from the cron service's own calendar (a BullMQ repeat
 * strategy), so BullMQ fires exactly when the service counts a fire as due.
 *
 * Arming a job that already has a scheduler with the same schedule leaves it as it is: upserting
 * again would replace the pending fire with the next one from now, and a fire that came due while
 * no process hosted the agent would never be counted as missed.
 */
export class QueueCronTrigger implements ICronTrigger {
  readonly shared = true;
  private readonly queue: Queue<CronFireJobData>;
  private worker: Worker<CronFireJobData> | undefined;
  private workerConnection: Redis | undefined;
  private handlers: CronTriggerHandlers | undefined;
  /** Jobs whose scheduler this process has seen set as armed, by their repeat options. */
  private readonly known = new Map<string, string>();
  private disposed = false;

  constructor(private readonly options: QueueCronTriggerOptions) {
    const { Queue } = options.bullmq;
    this.queue = new Queue<CronFireJobData>(cronQueueName(options.agentId), {
      connection: options.connection,
      prefix: options.queuePrefix,
      settings: { repeatStrategy: (millis, repeat) => this.next(millis, repeat) },
    });
    this.queue.on('error', (error) => this.warn(`the queue: ${errorMessage(error)}`));
  }

  start(handlers: CronTriggerHandlers): void {
    this.handlers = handlers;
    const { Worker } = this.options.bullmq;
    this.workerConnection = this.options.openWorkerConnection();
    this.worker = new Worker<CronFireJobData>(cronQueueName(this.options.agentId), (job) => this.take(job), {
      connection: this.workerConnection,
      prefix: this.options.queuePrefix,
      // The cron service handles one look at a job at a time anyway.
      concurrency: 1,
      lockDuration: this.options.lockDurationMs,
      stalledInterval: this.options.stalledIntervalMs,
      settings: { repeatStrategy: (millis, repeat) => this.next(millis, repeat) },
    });
    this.worker.on('error', (error) => this.warn(`the worker: ${errorMessage(error)}`));
  }

  async arm(job: CronJobSpec, at: number): Promise<void> {
    if (this.disposed) return;
    const repeat = repeatOf(job, at);
    const signature = JSON.stringify(repeat);
    if (this.known.get(job.id) === signature) return;
    if (!sameRepeat(await this.queue.getJobScheduler(job.id), repeat)) {
      await this.queue.upsertJobScheduler(job.id, repeat, {
        name: 'cron-fire',
        data: { jobId: job.id },
        // A fire's work is in the agent's state; its BullMQ job is not kept. It fails only when
        // the process taking it is shutting down: another process takes it again.
        opts: { removeOnComplete: true, removeOnFail: { count: 100 }, attempts: 3 },
      });
    }
    this.known.set(job.id, signature);
  }

  async disarm(jobId: string): Promise<void> {
    this.known.delete(jobId);
    if (this.disposed) return;
    await this.queue.removeJobScheduler(jobId);
  }

  /** The agent's queue, for tests and hosts that inspect it (getJobSchedulers). */
  get bullQueue(): Queue<CronFireJobData> {
    return this.queue;
  }

  /** Stops taking fires (waits for one being handled); the schedulers stay, for the agent's other processes and its next start. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    try {
      await this.worker?.close();
      await this.queue.close();
    } finally {
      this.workerConnection?.disconnect();
      this.handlers = undefined;
    }
  }

  private async take(job: Job<CronFireJobData>): Promise<void> {
    const handlers = this.handlers;
    if (!handlers) throw new Error(`The cron trigger of agent ${this.options.agentId} was disposed in this process; the fire is for another.`);
    // A scheduler's job is for the occurrence it was created for (prevMillis), whenever it is taken.
    const scheduledAt = job.opts.prevMillis ?? job.timestamp;
    await handlers.fire(job.data.jobId, { scheduledAt, now: Date.now() });
  }

  private next(millis: number, repeat: RepeatOptions): number | undefined {
    if (!this.handlers || repeat.pattern === undefined || repeat.tz === undefined) return undefined;
    try {
      return this.handlers.next(repeat.pattern, repeat.tz, millis);
    } catch (error) {
      this.warn(`"${repeat.pattern}" (${repeat.tz}) has no next occurrence: ${errorMessage(error)}`);
      return undefined;
    }
  }

  private warn(message: string): void {
    this.handlers?.warn(`Cron queue of agent ${this.options.agentId}: ${message}`);
  }
}
