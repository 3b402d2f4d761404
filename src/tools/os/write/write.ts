import { z } from 'zod';

export const WriteInputSchema = z.object({
  path: z
    .string()
    .describe(
      'Path of the file to write. Relative paths resolve against the working directory; a path outside it must be absolute. ' +
        'Missing parent directories are created. A directory cannot be written.',
    ),
  content: z
    .string()
    .describe('The complete new content of the file (or, with mode "append", the text to add at its end), written exactly as given: no newline is added and line endings are not converted.'),
  mode: z
    .enum(['overwrite', 'append'])
    .optional()
    .describe('"overwrite" (default) replaces the whole file; "append" adds content at the end of the file (creating it if missing). To change part of a file, use Edit instead.'),
});

export type WriteInput = z.infer<typeof WriteInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const WRITE_SAMPLES: readonly WriteInput[] = [
  { path: 'src/a.ts', content: 'export {};\n' },
  { path: 'new/dir/b.txt', content: '', mode: 'append' },
];
