import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const PlanConfigSchema = z.strictObject({
  autoApprove: z
    .boolean()
    .default(false)
    .describe('With nobody to review a plan, ExitPlanMode leaves plan mode anyway and labels the plan "auto-approved, not reviewed by a person".'),
});

export const planConfig = defineConfigSection('plan', PlanConfigSchema.prefault({}).describe('Plan mode (EnterPlanMode, ExitPlanMode).'));
export type PlanConfig = z.output<typeof PlanConfigSchema>;
