import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const NOTIFY_USER_NAME = 'NotifyUser';

export const NotifyUserInputSchema = z.strictObject({
  title: z.string().min(1).max(80).describe('One line, 1–80 characters, e.g. "Tests green on branch fix-login".'),
  body: z.string().max(300).optional().describe('Plain text, at most 300 characters. Never terminal output, code or secrets.'),
  severity: z.enum(['info', 'warning', 'error']).optional().describe('info (default), warning or error.'),
  dedupe_key: z
    .string()
    .min(1)
    .max(60)
    .optional()
    .describe('A notification with the same key within the de-duplication window is not sent again, e.g. "build-done".'),
});
export type NotifyUserInput = z.infer<typeof NotifyUserInputSchema>;

export const NotifyConfigSchema = z.strictObject({
  dedupeSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(300)
    .describe('A notification with the same dedupe_key, or the same title and body, within this many seconds is not sent again (from any agent of the App).'),
  perMinute: z.number().int().min(1).max(60).default(3).describe('At most this many notifications per agent in any 60 seconds.'),
});
export const notifyConfig = defineConfigSection('notify', NotifyConfigSchema.prefault({}));
export type NotifyConfig = z.output<typeof NotifyConfigSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const NOTIFY_USER_SAMPLES: readonly NotifyUserInput[] = [
  { title: 'Tests green on branch fix-login' },
  { title: 'Migration needs a decision', body: 'Two schemas disagree on the users table.', severity: 'warning', dedupe_key: 'migration' },
];

// C0 and C1 controls, DEL, and the bidirectional overrides and isolates (they reorder what is shown).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A title as shown: one line, without control characters, runs of spaces collapsed. */
export function cleanTitle(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').replace(CONTROLS, '').replace(/ {2,}/g, ' ').trim();
}

/** A body as shown: line breaks kept (as `\n`), every other control character removed. */
export function cleanBody(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .split('\n')
    .map((line) => line.replace(CONTROLS, '').trimEnd())
    .join('\n')
    .trim();
}
