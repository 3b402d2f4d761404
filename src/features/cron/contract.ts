import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/** The cron feature's contract for other features and hosts: the App's timer and an agent's jobs. */

/** Bad input or an operation that did nothing (an unknown id, the cap); the message says what to do instead. */
export class CronError extends Error {
  override readonly name = 'CronError';
}

/** `one`: fires missed while the agent was not running are delivered once, with their count, when the newest is recent; `none`: they are skipped (and recorded). */
export const CRON_CATCH_UP = ['one', 'none'] as const;
export type CronCatchUp = (typeof CRON_CATCH_UP)[number];

export interface CronCreateRequest {
  /** 5 fields or @hourly/@daily/@weekly/@monthly. */
  readonly cron: string;
  readonly prompt: string;
  /** Default true; false: the job fires once, at the expression's next match. */
  readonly recurring?: boolean;
  /** IANA name; default the host's zone. */
  readonly timezone?: string;
  readonly name?: string;
  /** Recurring jobs only; default 7, at most 30. */
  readonly expiresInDays?: number;
  readonly catchUp?: CronCatchUp;
}

/** Fires that were not delivered, and why; kept until the next skip replaces it. */
export interface CronSkip {
  /** How many occurrences (at least this many when `capped`). */
  readonly occurrences: number;
  readonly capped: boolean;
  /** The newest skipped occurrence (ms since the epoch). */
  readonly newest: number;
  /** e.g. `agent not running`. */
  readonly reason: string;
}

/** A job as it was settled at creation: what CronList shows and the store keeps alike. */
export interface CronJobSpec {
  readonly id: string;
  readonly name?: string;
  readonly cron: string;
  readonly timezone: string;
  readonly prompt: string;
  readonly recurring: boolean;
  readonly catchUp: CronCatchUp;
  readonly createdAt: number;
  /** Recurring jobs: no fire after this. */
  readonly expiresAt?: number;
}

/** A job as CronCreate and CronList show it. */
export interface CronJobReport extends CronJobSpec {
  /** The next three occurrences (fewer near the end); empty once the job has ended. */
  readonly nextRuns: readonly number[];
  /** `ended`: it will not fire again and is kept only to show its last skip. */
  readonly status: 'scheduled' | 'ended';
  /** The occurrence last delivered. */
  readonly lastFiredAt?: number;
  /** Deliveries the host took (queued or coalesced). */
  readonly fires: number;
  /** Of those, how many merged into a delivery still waiting. */
  readonly coalesced: number;
  /** Deliveries the host dropped. */
  readonly dropped: number;
  readonly lastSkipped?: CronSkip;
}

/** What happened to one occurrence (or one run of late occurrences), as CronFired reports it. */
export interface CronFireEvent {
  readonly jobId: string;
  readonly scheduledFor: number;
  /** Occurrences not delivered on time that this delivery stands for (0: on time). */
  readonly missed: number;
  readonly outcome: 'queued' | 'coalesced' | 'dropped' | 'skipped';
}

/**
 * The agent's cron jobs (Agent scope, main agent only): durable in state key `cron`, scheduled on
 * the App's ICronScheduler, delivered through the host's IAgentPromptInjection.
 */
export interface IAgentCronService {
  /** Validates without I/O (the checks CronCreate makes in resolve); throws CronError. Returns the first occurrences. */
  check(request: CronCreateRequest): { readonly nextRuns: readonly number[] };
  create(request: CronCreateRequest): Promise<CronJobReport>;
  /** Deletes a job (scheduled or ended); throws CronError naming the jobs there are when `id` is unknown. */
  delete(id: string): Promise<CronJobReport>;
  list(): Promise<readonly CronJobReport[]>;
  /** Scheduled jobs as last known (no I/O), for the cap check in resolve. */
  readonly scheduledCount: number;
  /** Resolves once what has started (loading, fires, changes) is written. */
  settled(): Promise<void>;
  readonly onDidFire: Event<CronFireEvent>;
  /** A job could not be loaded or a fire failed; the message says which. */
  readonly onWarning: Event<string>;
}
export const IAgentCronService = createServiceId<IAgentCronService>('AgentCronService');

/** When a scheduler entry runs: the time it was due and the wall-clock time now. */
export interface CronTimerFiring {
  readonly scheduledAt: number;
  readonly now: number;
}

/** The wall clock moved against elapsed time: the machine slept (`driftMs` > 0) or the clock was set (either sign). */
export interface ClockJump {
  /** When the timer was due by the wall clock as it was set. */
  readonly expectedAt: number;
  readonly now: number;
  readonly driftMs: number;
}

/**
 * The App's one timer for every agent's jobs (App scope): entries by key, a single clock timer set
 * to the earliest (re-armed at least every `cron.wakeCheckMinutes`, so a wake from sleep is
 * noticed), never a polling loop. An entry fires once; its owner schedules the next.
 */
export interface ICronScheduler {
  /** Sets (or moves) entry `key` to run `fire` at `at` (ms since the epoch; now or past: on the next turn of the timer). */
  schedule(key: string, at: number, fire: (firing: CronTimerFiring) => void): void;
  cancel(key: string): void;
  /** Entries waiting. */
  readonly size: number;
  /** The earliest entry's time, or undefined. */
  readonly nextAt: number | undefined;
  /** Compares the wall clock now (a host may call it on resume from sleep): runs what is due and re-arms. */
  check(): void;
  readonly onClockJump: Event<ClockJump>;
  /** An entry's `fire` threw (it should not); the others still ran. */
  readonly onFireError: Event<{ readonly key: string; readonly error: unknown }>;
}
export const ICronScheduler = createServiceId<ICronScheduler>('CronScheduler');

/** What a trigger calls back: the agent's cron service. */
export interface CronTriggerHandlers {
  /** An occurrence of job `jobId` is due; the promise settles once it is handled, and rejects only when the service was disposed (a queue then gives the fire to another process). */
  fire(jobId: string, firing: CronTimerFiring): Promise<void>;
  /**
   * The first occurrence of `cron` in `timezone` strictly after `after` (undefined: none): the
   * service's own calendar, so a queue's schedule agrees with what the service counts as due.
   */
  next(cron: string, timezone: string, after: number): number | undefined;
  /** Something went wrong outside a fire (the queue's connection, a scheduler that could not be set). */
  warn(message: string): void;
}

/**
 * What fires one agent's cron jobs (Agent scope), chosen by the host's configuration: the App's
 * timer (ICronScheduler), one occurrence at a time, in this process; or (`scale.jobs.cron:
 * "queue"`) a BullMQ job scheduler per job, shared by every process that hosts an agent of that
 * id, so each occurrence is taken by one of them. The cron service keeps its logic (what is due,
 * late, coalesced, expired) for both; a trigger only says when to look at a job.
 */
export interface ICronTrigger {
  /**
   * True: other processes fire the same jobs and change the same state, so the service reads the
   * jobs from the store before each change and claims an occurrence (compare-and-set of its
   * cursor) before delivering it.
   */
  readonly shared: boolean;
  /** Set once, by the agent's cron service, before it arms anything. */
  start(handlers: CronTriggerHandlers): void;
  /** Makes `job` fire at `at`, its next occurrence (a queue: its schedule from then on; again for the same job changes nothing). */
  arm(job: CronJobSpec, at: number): Promise<void>;
  /** The job was deleted or ended: it fires no more. */
  disarm(jobId: string): Promise<void>;
}
export const ICronTrigger = createServiceId<ICronTrigger>('CronTrigger');

/**
 * Optional (Agent scope): another feature (scale) binds it to fire jobs from a queue. Undefined
 * from `create`: the App's timer.
 */
export interface ICronTriggerFactory {
  create(): ICronTrigger | undefined;
}
export const ICronTriggerFactory = createServiceId<ICronTriggerFactory>('CronTriggerFactory');
