import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const DEFAULT_EDIT_MAX_FILE_BYTES = 128 * 1024 * 1024;

export const EditConfigSchema = z.strictObject({
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(DEFAULT_EDIT_MAX_FILE_BYTES)
    .describe('Edit refuses files larger than this (it holds the file in memory once while it edits).'),
});

export const editConfig = defineConfigSection('edit', EditConfigSchema.prefault({}));
export type EditConfig = z.output<typeof EditConfigSchema>;
