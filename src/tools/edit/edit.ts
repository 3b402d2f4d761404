import { z } from 'zod';

export const EditInputSchema = z.object({
  path: z
    .string()
    .describe(
      'Path of an existing text file (UTF-8). Relative paths resolve against the working directory; a path outside it must be absolute. ' +
        'To create a file, use Write.',
    ),
  old_string: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, copied from the file as Read shows it, with its indentation and without the line-number prefixes Read adds. ' +
        'It must occur exactly once unless replace_all is true: include enough surrounding lines to make it unique.',
    ),
  new_string: z
    .string()
    .describe('The text that replaces old_string, exactly as it should appear (an empty string deletes old_string). It must differ from old_string. `$` has no special meaning.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence of old_string instead of exactly one (default false). Use it to rename something throughout the file.'),
});

export type EditInput = z.infer<typeof EditInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const EDIT_SAMPLES: readonly EditInput[] = [
  { path: 'src/a.ts', old_string: 'export', new_string: 'import' },
  { path: 'src/a.ts', old_string: '{}', new_string: '', replace_all: true },
];
