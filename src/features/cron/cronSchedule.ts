import type { Cron as CronClass } from 'croner';
import { CronError } from './contract';

/** Macros accepted besides 5 fields; croner's others (@yearly, @reboot) are not. */
export const CRON_MACROS = ['@hourly', '@daily', '@weekly', '@monthly'] as const;
const FIELDS_HINT = `use 5 fields (minute hour day-of-month month day-of-week) or ${CRON_MACROS.join(', ')}`;

// Required on first use (loadCronCalculator), not at start-up: most agents never schedule anything.
let cronerModule: typeof import('croner') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const croner = (): typeof import('croner') => (cronerModule ??= require('croner') as typeof import('croner'));

/** Loads croner now, so that CronCreate's resolve (which parses) does no file I/O. */
export function loadCronCalculator(): void {
  croner();
}

/** A parsed schedule: croner as a pure calculator (paused, no callback: it never sets a timer). */
export interface CronSchedule {
  /** The expression as given, trimmed. */
  readonly expression: string;
  readonly timezone: string;
  /** The first occurrence strictly after `after` (ms since the epoch), or undefined when there is none. */
  next(after: number): number | undefined;
}

/** The host's IANA time zone (the default of a job's `timezone`). */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Throws CronError unless `timezone` is a time zone the runtime knows. */
export function assertTimeZone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new CronError(`Unknown time zone "${timezone}"; use an IANA name such as "Europe/Berlin", "America/New_York" or "UTC".`);
  }
}

/** Parses a 5-field expression (6 with seconds first, when `seconds`) or a macro in a time zone; throws CronError with what is wrong. */
export function parseCronSchedule(expression: string, timezone: string, options: { readonly seconds?: boolean } = {}): CronSchedule {
  const text = expression.trim().replace(/\s+/g, ' ');
  if (text === '') throw new CronError(`The cron expression is empty; ${FIELDS_HINT}.`);
  if (text.startsWith('@')) {
    if (!(CRON_MACROS as readonly string[]).includes(text.toLowerCase())) throw new CronError(`Invalid cron expression "${text}": ${FIELDS_HINT}.`);
  } else {
    const fields = text.split(' ').length;
    if (fields !== 5 && !(fields === 6 && options.seconds)) {
      throw new CronError(`Invalid cron expression "${text}": it has ${fields} field${fields === 1 ? '' : 's'}; ${options.seconds ? `${FIELDS_HINT}, or 6 with seconds first` : FIELDS_HINT}.`);
    }
    // croner reads "?" as "the current time's value", which would depend on when the job was made.
    if (text.includes('?')) throw new CronError(`Invalid cron expression "${text}": "?" is not supported; use "*".`);
  }
  assertTimeZone(timezone);
  let cron: CronClass;
  try {
    // legacyMode's OR of day-of-month and day-of-week (standard cron), said explicitly: domAndDow false.
    cron = new (croner().Cron)(text.toLowerCase().startsWith('@') ? text.toLowerCase() : text, { paused: true, timezone, mode: text.split(' ').length === 6 ? '6-part' : '5-part', domAndDow: false });
  } catch (error) {
    throw new CronError(`Invalid cron expression "${text}": ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    expression: text,
    timezone,
    next: (after) => cron.nextRun(new Date(after))?.getTime(),
  };
}

/**
 * The occurrences in (after, through]: how many (at most `cap`; `capped` when there are more),
 * the newest counted and the first after it (`following`, undefined when the schedule has no more).
 * `first` is the first occurrence after `after` when the caller knows it (saves a computation).
 */
export function countOccurrences(
  schedule: CronSchedule,
  after: number,
  through: number,
  cap: number,
  first?: number,
): { readonly count: number; readonly newest?: number; readonly following?: number; readonly capped: boolean } {
  let count = 0;
  let newest: number | undefined;
  let next = first ?? schedule.next(after);
  while (next !== undefined && next <= through) {
    if (count === cap) return { count, ...(newest !== undefined ? { newest: lastBefore(schedule, newest, through) } : {}), following: schedule.next(through), capped: true };
    count++;
    newest = next;
    next = schedule.next(next);
  }
  return { count, ...(newest !== undefined ? { newest } : {}), ...(next !== undefined ? { following: next } : {}), capped: false };
}

/**
 * The newest occurrence at or before `through`, searched forward from `from` (an occurrence);
 * used once counting stopped at the cap, so it steps in widening jumps instead of one by one.
 */
function lastBefore(schedule: CronSchedule, from: number, through: number): number {
  const newest = from;
  // Occurrences are at least a minute apart: jump back from `through` until one lies after `newest`.
  for (let back = 60_000; ; back *= 2) {
    const start = Math.max(newest, through - back);
    const candidate = schedule.next(start);
    if (candidate !== undefined && candidate <= through && candidate > newest) {
      let at = candidate;
      for (let next = schedule.next(at); next !== undefined && next <= through; next = schedule.next(at)) at = next;
      return at;
    }
    if (start === newest) return newest;
  }
}
