import { formatCount, formatDuration } from '../../base/strings';
import { CRON_CATCH_UP, type CronJobReport, type CronJobSpec, type CronSkip } from './contract';

/** The state key of the jobs. */
export const CRON_STATE_KEY = 'cron';
export const MAX_CRON_JOBS = 50;
export const MAX_PROMPT_BYTES = 8192;
export const MAX_NAME_CHARS = 60;
export const DEFAULT_EXPIRES_IN_DAYS = 7;
export const MAX_EXPIRES_IN_DAYS = 30;
/** A one-shot fires at most this far ahead. */
export const MAX_ONE_SHOT_DAYS = 366;
/** An expression whose next fire is further away than this is refused. */
export const NEVER_FIRES_YEARS = 5;
/** Missed occurrences are counted up to this many (croner takes ~0.3 ms per occurrence in a time zone). */
export const MAX_COUNTED_MISSES = 200;
/** A delivery this long after its occurrence (or later) is late: it counts as missed and follows the catch-up rule. */
export const LATE_AFTER_MS = 60_000;
/** The catch-up grace: one interval of the job, at most this. */
export const MAX_CATCH_UP_GRACE_MS = 24 * 3_600_000;
/** An ended job (kept to show its skip) is dropped this long after it ended. */
export const ENDED_RETENTION_MS = 7 * 86_400_000;
export const DAY_MS = 86_400_000;

/** A job as stored under `cron`: the request as settled, and what happened so far. */
export interface StoredCronJob extends CronJobSpec {
  /** The newest occurrence accounted for (delivered, dropped or skipped); createdAt at first. */
  readonly cursor: number;
  readonly lastFiredAt?: number;
  readonly fires: number;
  readonly coalesced: number;
  readonly dropped: number;
  readonly lastSkipped?: CronSkip;
  /** Set when the job will not fire again but is kept to show its skip. */
  readonly endedAt?: number;
}

export interface CronState {
  readonly jobs: readonly StoredCronJob[];
  /** The number of the next id (`cron-<n>`); ids are never reused. */
  readonly nextId: number;
}
export const EMPTY_CRON_STATE: CronState = { jobs: [], nextId: 1 };

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isTime = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
const optional = (value: unknown, test: (v: unknown) => boolean) => value === undefined || test(value);

function jobProblem(job: unknown): string | undefined {
  if (typeof job !== 'object' || job === null) return 'is not an object';
  const j = job as Record<string, unknown>;
  if (typeof j.id !== 'string' || !/^cron-\d+$/.test(j.id)) return 'has no id "cron-<n>"';
  if (typeof j.cron !== 'string' || typeof j.timezone !== 'string' || typeof j.prompt !== 'string') return 'lacks cron, timezone or prompt';
  if (typeof j.recurring !== 'boolean' || !(CRON_CATCH_UP as readonly unknown[]).includes(j.catchUp)) return 'lacks recurring or catchUp';
  if (!isTime(j.createdAt) || !isTime(j.cursor) || !optional(j.expiresAt, isTime) || !optional(j.lastFiredAt, isTime) || !optional(j.endedAt, isTime)) return 'has a time that is not a number';
  if (!isCount(j.fires) || !isCount(j.coalesced) || !isCount(j.dropped)) return 'has a count that is not a whole number';
  if (!optional(j.name, (n) => typeof n === 'string')) return 'has a name that is not text';
  const skip = j.lastSkipped as Record<string, unknown> | undefined;
  if (skip !== undefined && (typeof skip !== 'object' || skip === null || !isCount(skip.occurrences) || !isTime(skip.newest) || typeof skip.reason !== 'string' || typeof skip.capped !== 'boolean')) {
    return 'has a lastSkipped that is not a skip';
  }
  return undefined;
}

/** Why a stored value is not cron state (undefined: it is); the store sets such a value aside. */
export function cronStateProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not cron state';
  const { jobs, nextId } = value as { jobs?: unknown; nextId?: unknown };
  if (!isCount(nextId) || nextId < 1) return 'its "nextId" is not a positive integer';
  if (!Array.isArray(jobs)) return 'its "jobs" is not a list';
  for (const [i, job] of jobs.entries()) {
    const problem = jobProblem(job);
    if (problem !== undefined) return `its job ${i + 1} ${problem}`;
  }
  return undefined;
}

/** A stored value (checked with cronStateProblem) as CronState; absent: no jobs. */
export function toCronState(value: unknown): CronState {
  if (value === undefined || cronStateProblem(value) !== undefined) return EMPTY_CRON_STATE;
  return value as CronState;
}

/** ISO 8601 UTC to the second (cron works in whole minutes): `2026-12-07T08:00:00Z`. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `2026-12-07T08:00:00Z (in 2 h 5 min)` or `(3 min ago)`. */
function when(ms: number, now: number): string {
  const delta = ms - now;
  if (Math.abs(delta) < 1000) return `${isoSeconds(ms)} (now)`;
  return `${isoSeconds(ms)} (${delta > 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`})`;
}

export function skipText(skip: CronSkip, now: number): string {
  const count = `${skip.capped ? 'at least ' : ''}${formatCount(skip.occurrences)} fire${skip.occurrences === 1 ? '' : 's'}`;
  return `${when(skip.newest, now)} (${skip.reason}; ${count} skipped)`;
}

/** `key: value` fields of a job; the same, snake_case, are its structured content. */
export function cronJobFields(job: CronJobReport, now: number): Record<string, string | number | boolean | readonly string[]> {
  return {
    id: job.id,
    ...(job.name !== undefined ? { name: job.name } : {}),
    status: job.status,
    schedule: `${job.cron} (${job.timezone})`,
    recurring: job.recurring,
    next_runs: job.nextRuns.map(isoSeconds),
    ...(job.expiresAt !== undefined ? { expires_at: when(job.expiresAt, now) } : {}),
    catch_up: job.catchUp,
    created_at: isoSeconds(job.createdAt),
    ...(job.lastFiredAt !== undefined ? { last_fired_at: when(job.lastFiredAt, now) } : {}),
    fires: job.fires,
    coalesced: job.coalesced,
    dropped: job.dropped,
    ...(job.lastSkipped !== undefined ? { last_skipped: skipText(job.lastSkipped, now) } : {}),
    prompt: job.prompt,
  };
}

/** A job as `key: value` lines (the prompt last, on one line, cut at 200 characters). */
export function cronJobLines(job: CronJobReport, now: number): string {
  return Object.entries(cronJobFields(job, now))
    .map(([key, value]) => {
      const text = Array.isArray(value) ? (value.length > 0 ? value.join(', ') : '(none)') : String(value);
      const line = text.replace(/\s*\n\s*/g, ' ');
      return `${key}: ${key === 'prompt' && line.length > 200 ? `${line.slice(0, 199)}…` : line}`;
    })
    .join('\n');
}

/** A job's report at `now`, with its next runs. */
export function cronJobReport(job: StoredCronJob, nextRuns: readonly number[]): CronJobReport {
  const { cursor: _cursor, endedAt, ...rest } = job;
  return { ...rest, nextRuns, status: endedAt !== undefined ? 'ended' : 'scheduled' };
}

function xmlAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');
}

/** What the model receives when a job fires: its prompt in a `<cron-fire>` block (attributes escaped, an inner closing tag defused). */
export function cronFireText(job: Pick<StoredCronJob, 'id' | 'name' | 'prompt'>, scheduledFor: number, missed: number, capped: boolean): string {
  const attributes = [
    `id="${xmlAttribute(job.id)}"`,
    ...(job.name !== undefined ? [`name="${xmlAttribute(job.name)}"`] : []),
    `scheduled_for="${isoSeconds(scheduledFor)}"`,
    ...(missed > 0 ? [`missed="${missed}${capped ? '+' : ''}"`] : []),
  ];
  const body = job.prompt.replace(/<\/cron-fire/gi, '&lt;/cron-fire');
  return `<cron-fire ${attributes.join(' ')}>\n${body}\n</cron-fire>`;
}
