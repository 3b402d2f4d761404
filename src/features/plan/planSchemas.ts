import { z } from 'zod';

export const EnterPlanModeInputSchema = z.strictObject({});
export type EnterPlanModeInput = z.infer<typeof EnterPlanModeInputSchema>;

export const ExitPlanModeInputSchema = z.strictObject({
  options: z
    .array(z.strictObject({ label: z.string().min(1).max(80), description: z.string().max(200).optional() }))
    .min(1)
    .max(3)
    .optional()
    .describe('Up to 3 named ways to carry out the plan the user may pick on approval, e.g. "Start with the tests".'),
});
export type ExitPlanModeInput = z.infer<typeof ExitPlanModeInputSchema>;

/** Labels the review itself uses. */
export const RESERVED_PLAN_OPTION_LABELS = ['Approve', 'Reject', 'Revise'] as const;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const ENTER_PLAN_MODE_SAMPLES: readonly EnterPlanModeInput[] = [{}];
export const EXIT_PLAN_MODE_SAMPLES: readonly ExitPlanModeInput[] = [{}, { options: [{ label: 'Start with the tests', description: 'Write the failing tests first.' }, { label: 'Parser first' }] }];
