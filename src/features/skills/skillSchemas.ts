import { z } from 'zod';

export const SkillInputSchema = z.strictObject({
  name: z.string().min(1).optional().describe('The skill to run, as listed in this description. Give name or query, not both.'),
  args: z.string().optional().describe('With name: what the skill should work on (it fills $ARGUMENTS, $1, $2 … in its instructions).'),
  query: z.string().min(1).optional().describe('Words to search the skills by name and description; returns up to 10 with full descriptions and runs nothing.'),
});
export type SkillInput = z.infer<typeof SkillInputSchema>;

/** The skill the conformance suite's workspace holds (tests/tools/conformance.test.ts writes it). */
export const SAMPLE_SKILL_NAME = 'sample-skill';
/** Sample inputs for the conformance suite: valid, resolved without I/O. */
export const SKILL_SAMPLES: readonly SkillInput[] = [{ name: SAMPLE_SKILL_NAME }, { name: SAMPLE_SKILL_NAME, args: 'src/a.ts' }, { query: 'sample' }];
