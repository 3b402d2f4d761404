import { inject, injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { Emitter } from '../../base/event';
import { formatCount } from '../../base/strings';
import type { ServiceAccessor } from '../../di/toolContribution';
import { type AgentStateOwner, IAgentStateStore, type JsonValue } from '../../services/agentState/agentState';
import { IClock } from '../../services/clock/clock';
import { hasPromptInjection, IAgentPromptInjection, type PromptInjectionResult } from '../../services/promptInjection/promptInjection';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { type AgentOptions, IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { CronError, type CronCreateRequest, type CronFireEvent, type CronJobReport, type CronSkip, ICronScheduler, type IAgentCronService } from './contract';
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
  /** The occurrence each scheduled job's scheduler entry is for. */
  private readonly nextAt = new Map<string, number>();
  /** Every read-change-write of the jobs runs in this chain, so a fire and a CronDelete never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private readonly fireEmitter = new Emitter<CronFireEvent>();
  readonly onDidFire = this.fireEmitter.event;
  private readonly warningEmitter = new Emitter<string>();
  readonly onWarning = this.warningEmitter.event;

  constructor(
    @inject(IAgentStateStore) private readonly store: IAgentStateStore,
    @inject(IClock) private readonly clock: IClock,
    @inject(ICronScheduler) private readonly scheduler: ICronScheduler,
    @inject(IAgentOptions) options: AgentOptions,
    // Resolved at each fire: the host's queue as bound now.
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
  ) {
    this.owner = { agentId: options.id, dataDir: options.dataDir };
    this.active = isMainAgent(options) && hasPromptInjection(services.get(IAgentPromptInjection));
    if (!this.active) return;
    loadCronCalculator();
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
      const id = `cron-${this.state.nextId}`;
      const job: StoredCronJob = {
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
      this.schedules.set(id, checked.schedule);
      await this.write({ jobs: [...this.state.jobs, job], nextId: this.state.nextId + 1 });
      this.arm(job, checked.nextRuns[0]);
      return cronJobReport(job, checked.nextRuns);
    });
  }

  async delete(id: string): Promise<CronJobReport> {
    this.assertActive();
    return this.run(async () => {
      const job = this.state.jobs.find((j) => j.id === id);
      if (!job) {
        const ids = this.state.jobs.map((j) => j.id);
        throw new CronError(ids.length > 0 ? `No cron job ${id}; its jobs are: ${ids.join(', ')}.` : `No cron job ${id}; this agent has no cron jobs.`);
      }
      this.disarm(id);
      await this.write({ ...this.state, jobs: this.state.jobs.filter((j) => j !== job) });
      this.schedules.delete(id);
      return cronJobReport(job, []);
    });
  }

  async list(): Promise<readonly CronJobReport[]> {
    if (!this.active) return [];
    return this.run(async () => {
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
    const schedule = parseCronSchedule(request.cron, request.timezone ?? hostTimeZone());
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
    if (this.scheduledCount >= MAX_CRON_JOBS) {
      throw new CronError(`This agent has ${this.scheduledCount} cron jobs, the most it may have; delete one with CronDelete first (CronList shows them).`);
    }
    const nextRuns = recurring ? this.upcoming(schedule, now, first, expiresAt, 3) : [first];
    return { schedule, recurring, ...(expiresInDays !== undefined ? { expiresInDays } : {}), nextRuns };
  }

  private assertActive(): void {
    if (!this.active) throw new CronError('Cron jobs belong to a main agent whose host takes prompts (IAgentPromptInjection); this agent has neither or not both.');
  }

  private async load(): Promise<void> {
    const entry = await this.store.get(this.owner, CRON_STATE_KEY, { check: cronStateProblem });
    this.state = toCronState(entry?.value);
    this.version = entry?.version ?? 0;
    const now = this.clock.now();
    const jobs: StoredCronJob[] = [];
    const armed: [StoredCronJob, number][] = [];
    let changed = false;
    for (const stored of this.state.jobs) {
      let job: StoredCronJob | undefined = stored;
      try {
        const advance = this.advance(stored, now, NOT_RUNNING);
        job = await this.settle(stored, advance);
        if (job && advance.next !== undefined) armed.push([job, advance.next]);
      } catch (error) {
        // A job that no longer parses (a time zone the runtime lost) is kept, unscheduled, and reported.
        this.warningEmitter.fire(`Cron job ${stored.id} of agent ${this.owner.agentId} was not scheduled: ${errorMessage(error)}`);
      }
      if (job !== stored) changed = true;
      if (job) jobs.push(job);
    }
    if (changed) await this.write({ ...this.state, jobs });
    for (const [job, next] of armed) this.arm(job, next);
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

  /** Makes the delivery an advance asks for (counting the host's answer) and reports a skip; returns the job to keep. */
  private async settle(job: StoredCronJob, advance: Advance): Promise<StoredCronJob | undefined> {
    let kept = advance.job;
    if (advance.delivery) {
      const { scheduledFor, missed, capped } = advance.delivery;
      let outcome: PromptInjectionResult;
      try {
        outcome = await this.services.get(IAgentPromptInjection).enqueue({ origin: 'cron', key: job.id, text: cronFireText(job, scheduledFor, missed, capped), coalesce: true });
      } catch (error) {
        this.warningEmitter.fire(`Cron job ${job.id} fired but the host did not take it: ${errorMessage(error)}`);
        outcome = 'dropped';
      }
      this.fireEmitter.fire({ jobId: job.id, scheduledFor, missed, outcome });
      if (kept) {
        kept =
          outcome === 'dropped'
            ? { ...kept, dropped: kept.dropped + 1 }
            : { ...kept, fires: kept.fires + 1, coalesced: kept.coalesced + (outcome === 'coalesced' ? 1 : 0), lastFiredAt: scheduledFor };
      }
    }
    if (advance.skip) this.fireEmitter.fire({ jobId: job.id, scheduledFor: advance.skip.newest, missed: advance.skip.occurrences, outcome: 'skipped' });
    return kept;
  }

  private async onTimer(id: string): Promise<void> {
    const job = this.state.jobs.find((j) => j.id === id);
    if (!job || this.disposed) return;
    const expected = this.nextAt.get(id);
    this.nextAt.delete(id);
    const advance = this.advance(job, this.clock.now(), CLOCK_JUMPED, expected !== undefined && expected > job.cursor ? expected : undefined);
    const kept = await this.settle(job, advance);
    if (kept !== job) await this.write({ ...this.state, jobs: kept ? this.state.jobs.map((j) => (j.id === id ? kept : j)) : this.state.jobs.filter((j) => j.id !== id) });
    if (!kept) this.schedules.delete(id);
    else this.arm(kept, advance.next);
  }

  private arm(job: StoredCronJob, at: number | undefined): void {
    if (at === undefined || this.disposed) return;
    this.nextAt.set(job.id, at);
    const id = job.id;
    this.scheduler.schedule(this.entryKey(id), at, () => {
      this.run(() => this.onTimer(id)).catch((error: unknown) => this.warningEmitter.fire(`Cron job ${id} of agent ${this.owner.agentId} failed to fire: ${errorMessage(error)}`));
    });
  }

  private disarm(id: string): void {
    this.nextAt.delete(id);
    this.scheduler.cancel(this.entryKey(id));
  }

  private entryKey(id: string): string {
    // Job ids have no "/": the key is unique whatever the agent id holds.
    return `${this.owner.agentId}/${id}`;
  }

  private scheduleOf(job: StoredCronJob): CronSchedule {
    let schedule = this.schedules.get(job.id);
    if (!schedule) {
      schedule = parseCronSchedule(job.cron, job.timezone);
      this.schedules.set(job.id, schedule);
    }
    return schedule;
  }

  private nextRuns(job: StoredCronJob, now: number, n: number): number[] {
    if (job.endedAt !== undefined) return [];
    const pending = this.nextAt.get(job.id);
    if (!job.recurring) return pending !== undefined ? [pending] : [];
    let schedule: CronSchedule;
    try {
      schedule = this.scheduleOf(job);
    } catch {
      return [];
    }
    return this.upcoming(schedule, Math.max(now, job.cursor), pending, job.expiresAt, n);
  }

  /** Up to `n` occurrences after `after` (starting at `first` when known), none past `expiresAt`. */
  private upcoming(schedule: CronSchedule, after: number, first: number | undefined, expiresAt: number | undefined, n: number): number[] {
    const runs: number[] = [];
    for (let at = first ?? schedule.next(after); at !== undefined && runs.length < n && (expiresAt === undefined || at <= expiresAt); at = schedule.next(at)) runs.push(at);
    return runs;
  }

  private async write(state: CronState): Promise<void> {
    const written = await this.store.compareAndSet(this.owner, CRON_STATE_KEY, this.version, state as unknown as JsonValue);
    if (!written.ok) {
      throw new CronError(
        `The cron jobs of agent ${this.owner.agentId} were changed outside it (another process using data directory ${this.owner.dataDir}?); nothing was written. Recreate the agent to reload them.`,
      );
    }
    this.state = state;
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
    for (const id of [...this.nextAt.keys()]) this.disarm(id);
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
