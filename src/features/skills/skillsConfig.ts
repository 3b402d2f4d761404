import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const SkillsConfigSchema = z.strictObject({
  paths: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'More skill roots, searched after the workspace and home roots: folders holding <name>/SKILL.md. "~/" is the home directory; a relative path is relative to the working directory.',
    ),
  listingChars: z
    .number()
    .int()
    .min(200)
    .max(100_000)
    .default(8000)
    .describe('Characters the skill listing in the Skill tool description may take; over it, descriptions are shortened (never left out).'),
});

export const skillsConfig = defineConfigSection('skills', SkillsConfigSchema.prefault({}).describe('Agent Skills (the Skill tool and `toolhost skills`).'));
export type SkillsConfig = z.output<typeof SkillsConfigSchema>;
