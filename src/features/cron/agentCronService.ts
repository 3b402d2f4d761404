import { inject, injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { Emitter } from '../../base/event';
import { formatCount } from '../../base/strings';
import type { ServiceAccessor } from '../../di/toolContribution';
import { type AgentStateOwner, IAgentStateStore, type JsonValue, updateAgentState } from '../../services/agentState/agentState';
import { IClock } from '../../services/clock/clock';
import { hasPromptInjection, IAgentPromptInjection, type PromptInjectionResult } from '../../services/promptInjection/promptInjection';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { type AgentOptions, IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { IConfigService } from '../../services/config/config';
import { CronError, type CronCreateRequest, type CronFireEvent, type CronJobReport, type CronSkip, type CronTimerFiring, ICronTrigger, type IAgentCronService } from './contract';
import { cronConfig } from './cronConfig';
import {
  CRON_STATE_KEY,
  type CronState,
  cronFireText,
  cronJobReport,
  cronStateProblem,
  DAY_MS,
  DEFAULT_EXPIRES_IN_DAYS,
  EMPTY_CRON_STATE,
  ENDED_RETENTION_MS,
  isoSeconds,
  LATE_AFTER_MS,
  MAX_CATCH_UP_GRACE_MS,
  MAX_COUNTED_MISSES,
  MAX_CRON_JOBS,
  MAX_EXPIRES_IN_DAYS,
  MAX_NAME_CHARS,
  MAX_ONE_SHOT_DAYS,
  MAX_PROMPT_BYTES,
  NEVER_FIRES_YEARS,
  type StoredCronJob,
  toCronState,
} from './cronModel';
import { type CronSchedule, countOccurrences, hostTimeZone, loadCronCalculator, parseCronSchedule } from './cronSchedule';

const NOT_RUNNING = 'agent not running';
/** Queue mode: a fire taken late means no process hosted the agent (or none took it) in time. */
const NOT_TAKEN = 'no process of the agent took it in time';
const CLOCK_JUMPED = 'the machine slept or the clock jumped';

/** What one look at a job found: the job as it is now (undefined: remove it), a delivery to make, and its next occurrence. */
interface Advance {
  readonly job: StoredCronJob | undefined;
  readonly delivery?: { readonly scheduledFor: number; readonly missed: number; readonly capped: boolean };
  readonly skip?: CronSkip;
  readonly next?: number;
}

interface CheckedRequest {
  readonly schedule: CronSchedule;
  readonly recurring: boolean;
  readonly expiresInDays?: number;
  readonly nextRuns: readonly number[];
}

@injectable()
export class AgentCronService implements IAgentCronService {
  private readonly owner: AgentStateOwner;
  /** A main agent whose host takes prompts: otherwise nothing is loaded or scheduled. */
  private readonly active: boolean;
  private state: CronState = EMPTY_CRON_STATE;
  private version = 0;
  private readonly schedules = new Map<string, CronSchedule>();
  /** The occurrence each scheduled job's trigger is armed for (in this process). */
  private readonly nextAt = new Map<string, number>();
  /** `cron.allowSeconds`: 6-field expressions with seconds first. */
  private readonly seconds: boolean;
  /** Every read-change-write of the jobs runs in this chain, so a fire and a CronDelete never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private trigger: ICronTrigger | undefined;
  private readonly fireEmitter = new Emitter<CronFireEvent>();
  readonly onDidFire = this.fireEmitter.event;
  private readonly warningEmitter = new Emitter<string>();
  readonly onWarning = this.warningEmitter.event;

  constructor(
    @inject(IAgentStateStore) private readonly store: IAgentStateStore,
    @inject(IClock) private readonly clock: IClock,
    @inject(IAgentOptions) options: AgentOptions,
    // Resolved at each fire: the host's queue as bound now.
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(IConfigService) config: IConfigService,
  ) {
    this.owner = { agentId: options.id, dataDir: options.dataDir };
    this.seconds = config.section(cronConfig).allowSeconds;
    this.active = isMainAgent(options) && hasPromptInjection(services.get(IAgentPromptInjection));
    if (!this.active) return;
    loadCronCalculator();
    // Resolved only for an active agent: a queue trigger opens a BullMQ worker.
    this.trigger = services.get(ICronTrigger);
    this.trigger.start({
      fire: (id, firing) => {
        // Gone: the queue gives the fire to another process of the agent.
        if (this.disposed) return Promise.reject(new CronError(`Agent ${this.owner.agentId} was disposed in this process; its cron fires are for another.`));
        return this.run(() => this.onTimer(id, firing)).catch((error: unknown) => this.warningEmitter.fire(`Cron job ${id} of agent ${this.owner.agentId} failed to fire: ${errorMessage(error)}`));
      },
      next: (cron, timezone, after) => parseCronSchedule(cron, timezone, { seconds: this.seconds }).next(after),
      warn: (message) => this.warningEmitter.fire(message),
    });
    this.run(() => this.load()).catch((error: unknown) => this.warningEmitter.fire(`The cron jobs of agent ${this.owner.agentId} could not be loaded: ${errorMessage(error)}`));
  }

  get scheduledCount(): number {
    return this.state.jobs.filter((j) => j.endedAt === undefined).length;
  }

  check(request: CronCreateRequest): { readonly nextRuns: readonly number[] } {
    return { nextRuns: this.checked(request, this.clock.now()).nextRuns };
  }

  async create(request: CronCreateRequest): Promise<CronJobReport> {
    this.assertActive();
    return this.run(async () => {
      const now = this.clock.now();
      const checked = this.checked(request, now);
      let job!: StoredCronJob;
      await this.update((state) => {
        // Queue mode: the jobs as stored now (another process may have added some).
        assertRoomFor(state);
        job = this.newJob(`cron-${state.nextId}`, request, checked, now);
        return { jobs: [...state.jobs, job], nextId: state.nextId + 1 };
      });
      this.schedules.set(job.id, checked.schedule);
      await this.arm(job, checked.nextRuns[0]);
      return cronJobReport(job, checked.nextRuns);
    });
  }

  private newJob(id: string, request: CronCreateRequest, checked: CheckedRequest, now: number): StoredCronJob {
    return {
        id,
        ...(request.name?.trim() ? { name: request.name.trim() } : {}),
        cron: checked.schedule.expression,
        timezone: checked.schedule.timezone,
        prompt: request.prompt,
        recurring: checked.recurring,
        catchUp: request.catchUp ?? 'one',
        createdAt: now,
        ...(checked.expiresInDays !== undefined ? { expiresAt: now + checked.expiresInDays * DAY_MS } : {}),
        cursor: now,
        fires: 0,
        coalesced: 0,
        dropped: 0,
      };
  }

  async delete(id: string): Promise<CronJobReport> {
    this.assertActive();
    return this.run(async () => {
      let deleted: StoredCronJob | undefined;
      await this.update((state) => {
        deleted = state.jobs.find((j) => j.id === id);
        if (!deleted) {
          const ids = state.jobs.map((j) => j.id);
          throw new CronError(ids.length > 0 ? `No cron job ${id}; its jobs are: ${ids.join(', ')}.` : `No cron job ${id}; this agent has no cron jobs.`);
        }
        return { ...state, jobs: state.jobs.filter((j) => j !== deleted) };
      });
      await this.disarm(id);
      this.schedules.delete(id);
      return cronJobReport(deleted!, []);
    });
  }

  async list(): Promise<readonly CronJobReport[]> {
    if (!this.active) return [];
    return this.run(async () => {
      // Queue mode: another process may have created, fired or deleted jobs since.
      if (this.trigger?.shared) await this.refresh();
      const now = this.clock.now();
      return this.state.jobs.map((job) => cronJobReport(job, this.nextRuns(job, now, 3)));
    });
  }

  async settled(): Promise<void> {
    for (let tail = this.queue; ; tail = this.queue) {
      await tail;
      if (tail === this.queue) return;
    }
  }

  /** The checks of CronCreate, without I/O; throws CronError. */
  private checked(request: CronCreateRequest, now: number): CheckedRequest {
    this.assertActive();
    if (request.prompt.trim() === '') throw new CronError('The prompt is empty; say what the agent should do when the job fires.');
    const bytes = Buffer.byteLength(request.prompt, 'utf8');
    if (bytes > MAX_PROMPT_BYTES) throw new CronError(`The prompt is ${formatCount(bytes)} bytes; the limit is ${formatCount(MAX_PROMPT_BYTES)}. Shorten it, or put the details in a file and name the file.`);
    if (request.name !== undefined && [...request.name].length > MAX_NAME_CHARS) throw new CronError(`The name is ${[...request.name].length} characters; the limit is ${MAX_NAME_CHARS}.`);
    const recurring = request.recurring ?? true;
    if (!recurring && request.expiresInDays !== undefined) throw new CronError('expires_in_days is for recurring jobs; a one-shot job ends after its fire. Leave it out, or set recurring: true.');
    const expiresInDays = recurring ? (request.expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS) : undefined;
    if (expiresInDays !== undefined && !(Number.isInteger(expiresInDays) && expiresInDays >= 1 && expiresInDays <= MAX_EXPIRES_IN_DAYS)) {
      throw new CronError(`expires_in_days is a whole number of days from 1 to ${MAX_EXPIRES_IN_DAYS}; ${expiresInDays} is not.`);
    }
    const schedule = parseCronSchedule(request.cron, request.timezone ?? hostTimeZone(), { seconds: this.seconds });
    const first = schedule.next(now);
    if (first === undefined || first - now > NEVER_FIRES_YEARS * 365.25 * DAY_MS) {
      throw new CronError(`"${schedule.expression}" never fires in the next ${NEVER_FIRES_YEARS} years (${schedule.timezone}); check the day of the month against the month (e.g. February has no 30th).`);
    }
    if (!recurring && first - now > MAX_ONE_SHOT_DAYS * DAY_MS) {
      throw new CronError(`A one-shot job fires at most ${MAX_ONE_SHOT_DAYS} days ahead; "${schedule.expression}" next fires at ${isoSeconds(first)}.`);
    }
    const expiresAt = expiresInDays !== undefined ? now + expiresInDays * DAY_MS : undefined;
    if (expiresAt !== undefined && first > expiresAt) {
      throw new CronError(`"${schedule.expression}" first fires at ${isoSeconds(first)}, after the job would expire (${isoSeconds(expiresAt)}); give expires_in_days up to ${MAX_EXPIRES_IN_DAYS}, or a schedule that fires sooner.`);
    }
    assertRoomFor(this.state);
    const nextRuns = recurring ? this.upcoming(schedule, now, first, expiresAt, 3) : [first];
    return { schedule, recurring, ...(expiresInDays !== undefined ? { expiresInDays } : {}), nextRuns };
  }

  private assertActive(): void {
    if (!this.active) throw new CronError('Cron jobs belong to a main agent whose host takes prompts (IAgentPromptInjection); this agent has neither or not both.');
  }

  private async load(): Promise<void> {
    await this.refresh();
    for (const stored of this.state.jobs) {
      try {
        await this.account(stored.id, NOT_RUNNING);
      } catch (error) {
        // A job that no longer parses (a time zone the runtime lost) is kept, unscheduled, and reported.
        this.warningEmitter.fire(`Cron job ${stored.id} of agent ${this.owner.agentId} was not scheduled: ${errorMessage(error)}`);
      }
    }
  }

  /** Reads the jobs as stored now. */
  private async refresh(): Promise<void> {
    const entry = await this.store.get(this.owner, CRON_STATE_KEY, { check: cronStateProblem });
    this.state = toCronState(entry?.value);
    this.version = entry?.version ?? 0;
  }

  /**
   * Accounts for the occurrences of `job` since its cursor up to `now` (or its expiry): none, one on
   * time (a delivery), or late ones: one delivery with their count under `catch_up: one` when the
   * newest is within the grace (one interval, at most 24 h), otherwise a recorded skip. Never more
   * than one delivery.
   */
  private advance(job: StoredCronJob, now: number, reason: string, first?: number): Advance {
    if (job.endedAt !== undefined) return { job: now - job.endedAt > ENDED_RETENTION_MS ? undefined : job };
    const schedule = this.scheduleOf(job);
    const through = job.expiresAt !== undefined ? Math.min(now, job.expiresAt) : now;
    const counted = job.recurring
      ? countOccurrences(schedule, job.cursor, through, MAX_COUNTED_MISSES, first)
      : oneShotOccurrence(schedule, job, through);
    let updated = job;
    let delivery: Advance['delivery'];
    let skip: CronSkip | undefined;
    if (counted.count > 0 && counted.newest !== undefined) {
      const newest = counted.newest;
      const late = counted.count > 1 || now - newest > LATE_AFTER_MS;
      const grace = Math.min(counted.following !== undefined ? counted.following - newest : MAX_CATCH_UP_GRACE_MS, MAX_CATCH_UP_GRACE_MS);
      if (!late) delivery = { scheduledFor: newest, missed: 0, capped: false };
      else if (job.catchUp === 'one' && now - newest <= grace) delivery = { scheduledFor: newest, missed: counted.count, capped: counted.capped };
      else skip = { occurrences: counted.count, capped: counted.capped, newest, reason: job.catchUp === 'none' ? `${reason}; catch_up none` : reason };
      updated = { ...job, cursor: newest, ...(skip ? { lastSkipped: skip } : {}) };
    }
    const next = job.recurring ? schedule.next(Math.max(updated.cursor, now)) : updated.cursor === job.createdAt ? schedule.next(job.createdAt) : undefined;
    const ended = next === undefined || (job.expiresAt !== undefined && next > job.expiresAt);
    if (!ended) return { job: updated, ...(delivery ? { delivery } : {}), ...(skip ? { skip } : {}), next };
    // Ended: kept only to show a skip it just recorded.
    return { job: skip ? { ...updated, endedAt: now } : undefined, ...(delivery ? { delivery } : {}), ...(skip ? { skip } : {}) };
  }

  /**
   * Looks at job `id` now: claims what is due (writes its cursor, and drops an ended job), then
   * delivers (or reports the skip), then counts the host's answer, then arms the next occurrence.
   * The claim comes first so that, in queue mode, of two processes that look at the same
   * occurrence only the one whose compare-and-set wins delivers it.
   */
  private async account(id: string, reason: string, firing?: CronTimerFiring): Promise<void> {
    const now = this.clock.now();
    let claimed: { readonly job: StoredCronJob; readonly advance: Advance } | undefined;
    await this.update((state) => {
      const job = state.jobs.find((j) => j.id === id);
      claimed = undefined;
      if (!job) return undefined;
      // The timer's entry is the occurrence after the cursor (it saves a computation); a queue's fire
      // may be for an older one when another process claimed since: the cursor decides there.
      const hint = !this.trigger?.shared && firing !== undefined && firing.scheduledAt > job.cursor ? firing.scheduledAt : undefined;
      const advance = this.advance(job, now, reason, hint);
      claimed = { job, advance };
      return advance.job === job ? undefined : { ...state, jobs: replaceJob(state.jobs, id, advance.job) };
    });
    // Deleted (here or by another process): its queue entry, if any, goes too.
    if (!claimed) return this.disarm(id);
    const { job, advance } = claimed;
    if (advance.delivery) {
      const { scheduledFor } = advance.delivery;
      const outcome = await this.deliver(job, advance.delivery);
      if (advance.job) await this.update((state) => countDelivery(state, id, scheduledFor, outcome));
    }
    if (advance.skip) this.fireEmitter.fire({ jobId: job.id, scheduledFor: advance.skip.newest, missed: advance.skip.occurrences, outcome: 'skipped' });
    if (advance.job === undefined || advance.job.endedAt !== undefined) {
      await this.disarm(id);
      if (advance.job === undefined) this.schedules.delete(id);
    } else if (advance.next !== undefined) {
      await this.arm(advance.job, advance.next);
    }
  }

  /** Hands a fire to the host; the host's answer (a failure counts as dropped). */
  private async deliver(job: StoredCronJob, { scheduledFor, missed, capped }: NonNullable<Advance['delivery']>): Promise<PromptInjectionResult> {
    let outcome: PromptInjectionResult;
    try {
      outcome = await this.services.get(IAgentPromptInjection).enqueue({ origin: 'cron', key: job.id, text: cronFireText(job, scheduledFor, missed, capped), coalesce: true });
    } catch (error) {
      this.warningEmitter.fire(`Cron job ${job.id} fired but the host did not take it: ${errorMessage(error)}`);
      outcome = 'dropped';
    }
    this.fireEmitter.fire({ jobId: job.id, scheduledFor, missed, outcome });
    return outcome;
  }

  private async onTimer(id: string, firing: CronTimerFiring): Promise<void> {
    if (this.disposed) return;
    this.nextAt.delete(id);
    await this.account(id, this.trigger?.shared ? NOT_TAKEN : CLOCK_JUMPED, firing);
  }

  private async arm(job: StoredCronJob, at: number | undefined): Promise<void> {
    if (at === undefined || this.disposed || !this.trigger) return;
    this.nextAt.set(job.id, at);
    await this.trigger.arm(job, at);
  }

  private async disarm(id: string): Promise<void> {
    this.nextAt.delete(id);
    await this.trigger?.disarm(id);
  }

  private scheduleOf(job: StoredCronJob): CronSchedule {
    let schedule = this.schedules.get(job.id);
    if (!schedule) {
      schedule = parseCronSchedule(job.cron, job.timezone, { seconds: this.seconds });
      this.schedules.set(job.id, schedule);
    }
    return schedule;
  }

  private nextRuns(job: StoredCronJob, now: number, n: number): number[] {
    if (job.endedAt !== undefined) return [];
    // Queue mode: another process may have fired the job since this one armed it.
    const pending = this.trigger?.shared ? undefined : this.nextAt.get(job.id);
    if (!job.recurring && !this.trigger?.shared) return pending !== undefined ? [pending] : [];
    let schedule: CronSchedule;
    try {
      schedule = this.scheduleOf(job);
    } catch {
      return [];
    }
    if (!job.recurring) return job.cursor === job.createdAt ? this.upcoming(schedule, job.createdAt, undefined, undefined, 1) : [];
    return this.upcoming(schedule, Math.max(now, job.cursor), pending, job.expiresAt, n);
  }

  /** Up to `n` occurrences after `after` (starting at `first` when known), none past `expiresAt`. */
  private upcoming(schedule: CronSchedule, after: number, first: number | undefined, expiresAt: number | undefined, n: number): number[] {
    const runs: number[] = [];
    for (let at = first ?? schedule.next(after); at !== undefined && runs.length < n && (expiresAt === undefined || at <= expiresAt); at = schedule.next(at)) runs.push(at);
    return runs;
  }

  /**
   * Writes what `change` makes of the jobs (undefined: nothing to write). On the App's timer the
   * jobs are this process's own: a change from elsewhere is an error. In queue mode other
   * processes change them too: `change` gets them as stored now, and runs again when another
   * writer came first.
   */
  private async update(change: (state: CronState) => CronState | undefined): Promise<void> {
    if (this.trigger?.shared) {
      const { result, version } = await updateAgentState<CronState>(
        this.store,
        this.owner,
        CRON_STATE_KEY,
        (entry) => {
          const current = toCronState(entry?.value);
          const next = change(current);
          return next ? { value: next as unknown as JsonValue, result: next } : { skip: current };
        },
        { check: cronStateProblem },
      );
      this.state = result;
      if (version !== undefined) this.version = version;
      return;
    }
    const next = change(this.state);
    if (!next) return;
    const written = await this.store.compareAndSet(this.owner, CRON_STATE_KEY, this.version, next as unknown as JsonValue);
    if (!written.ok) {
      throw new CronError(
        `The cron jobs of agent ${this.owner.agentId} were changed outside it (another process using data directory ${this.owner.dataDir}?); nothing was written. Recreate the agent to reload them.`,
      );
    }
    this.state = next;
    this.version = written.version;
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.queue.then(op);
    this.queue = result.catch(() => undefined);
    return result;
  }

  @preDestroy()
  dispose(): void {
    this.disposed = true;
    // Not disarmed: the trigger is disposed with the agent (its timer entries cancelled; queue
    // schedulers stay, for the other processes of the agent and the next start).
    this.nextAt.clear();
    this.fireEmitter.dispose();
    this.warningEmitter.dispose();
  }
}

/** A one-shot's single occurrence, if it fell in (cursor, through] and has not been accounted for. */
function oneShotOccurrence(schedule: CronSchedule, job: StoredCronJob, through: number): { count: number; newest?: number; following?: number; capped: boolean } {
  if (job.cursor !== job.createdAt) return { count: 0, capped: false };
  const at = schedule.next(job.createdAt);
  return at !== undefined && at <= through ? { count: 1, newest: at, capped: false } : { count: 0, capped: false };
}

function assertRoomFor(state: CronState): void {
  const scheduled = state.jobs.filter((j) => j.endedAt === undefined).length;
  if (scheduled >= MAX_CRON_JOBS) throw new CronError(`This agent has ${scheduled} cron jobs, the most it may have; delete one with CronDelete first (CronList shows them).`);
}

/** The jobs with job `id` replaced by `job` (undefined: removed). */
function replaceJob(jobs: readonly StoredCronJob[], id: string, job: StoredCronJob | undefined): StoredCronJob[] {
  return job ? jobs.map((j) => (j.id === id ? job : j)) : jobs.filter((j) => j.id !== id);
}

/** The jobs with the host's answer to a delivery of job `id` counted (undefined: the job is gone). */
function countDelivery(state: CronState, id: string, scheduledFor: number, outcome: PromptInjectionResult): CronState | undefined {
  const job = state.jobs.find((j) => j.id === id);
  if (!job) return undefined;
  const counted: StoredCronJob =
    outcome === 'dropped'
      ? { ...job, dropped: job.dropped + 1 }
      : { ...job, fires: job.fires + 1, coalesced: job.coalesced + (outcome === 'coalesced' ? 1 : 0), lastFiredAt: scheduledFor };
  return { ...state, jobs: replaceJob(state.jobs, id, counted) };
}
