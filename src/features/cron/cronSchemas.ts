import { z } from 'zod';
import { CRON_CATCH_UP } from './contract';
import { MAX_EXPIRES_IN_DAYS, MAX_NAME_CHARS, MAX_PROMPT_BYTES } from './cronModel';

export const CronCreateInputSchema = z.object({
  cron: z
    .string()
    .min(1)
    .max(200)
    .describe('5 fields "minute hour day-of-month month day-of-week" (e.g. "0 9 * * 1-5"; month and day names allowed), or @hourly, @daily, @weekly, @monthly. No seconds field.'),
  // Bytes are checked in resolve (a schema can only count characters).
  prompt: z.string().min(1).describe(`What to tell you when it fires: 1 to ${MAX_PROMPT_BYTES} bytes of UTF-8.`),
  recurring: z.boolean().optional().describe('Default true. false: fire once, at the next match, then end.'),
  timezone: z.string().min(1).max(100).optional().describe('IANA time zone the fields are read in, e.g. "Europe/Berlin"; default the host\'s zone.'),
  name: z.string().min(1).max(MAX_NAME_CHARS).optional().describe('A short label shown in CronList and in the fire.'),
  expires_in_days: z.number().int().min(1).max(MAX_EXPIRES_IN_DAYS).optional().describe(`Recurring jobs only: stop after this many days (default 7, at most ${MAX_EXPIRES_IN_DAYS}).`),
  catch_up: z
    .enum(CRON_CATCH_UP)
    .optional()
    .describe('Fires missed while the agent was not running: "one" (default) delivers them once, with their count, if the newest is recent; "none" skips them. Skips are recorded either way.'),
});
export type CronCreateInput = z.infer<typeof CronCreateInputSchema>;

export const CronDeleteInputSchema = z.object({
  id: z.string().min(1).max(40).describe('The job id from CronCreate or CronList, e.g. "cron-3".'),
});
export type CronDeleteInput = z.infer<typeof CronDeleteInputSchema>;

export const CronListInputSchema = z.object({});
export type CronListInput = z.infer<typeof CronListInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const CRON_CREATE_SAMPLES: readonly CronCreateInput[] = [
  { cron: '0 9 * * 1-5', prompt: 'Check the nightly build and summarise failures.', timezone: 'Europe/Berlin' },
  { cron: '@hourly', prompt: 'Poll the deploy status.', recurring: true, name: 'deploy', expires_in_days: 2, catch_up: 'none', timezone: 'UTC' },
  { cron: '30 14 * * *', prompt: 'Remind the user about the review.', recurring: false, timezone: 'UTC' },
];
export const CRON_DELETE_SAMPLES: readonly CronDeleteInput[] = [{ id: 'cron-1' }];
export const CRON_LIST_SAMPLES: readonly CronListInput[] = [{}];
