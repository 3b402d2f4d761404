import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const CronConfigSchema = z.strictObject({
  wakeCheckMinutes: z
    .number()
    .int()
    .min(1)
    .max(60)
    .default(10)
    .describe(
      'The App\'s one cron timer wakes at least this often to compare the wall clock, so fires missed while the machine slept are noticed this long after it wakes at worst (a timer does not count time asleep).',
    ),
  allowSeconds: z
    .boolean()
    .default(false)
    .describe(
      'Accept 6-field expressions whose first field is the second (e.g. "*/10 * * * * *" every ten seconds) besides the 5 fields. For hosts that need sub-minute schedules; off by default, so a model cannot schedule a prompt every second.',
    ),
});
export const cronConfig = defineConfigSection('cron', CronConfigSchema.prefault({}).describe('Cron jobs (CronCreate, CronDelete, CronList).'));
export type CronConfig = z.output<typeof CronConfigSchema>;
