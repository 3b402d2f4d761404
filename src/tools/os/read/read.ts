import { z } from 'zod';

export const ReadInputSchema = z.object({
  path: z
    .string()
    .describe(
      'Path of a text file. Relative paths resolve against the working directory; a path outside it must be absolute. ' +
        'Directories are not supported: use Glob to find files, or `ls` through Bash to list a directory. ' +
        'Binary files (images, archives, executables) are not supported.',
    ),
  line_offset: z
    .union([z.number().int().min(1), z.number().int().max(-1)])
    .optional()
    .describe(
      'Where to start: a 1-based line number (default 1), or a negative number to read that many lines from the end of the file ' +
        '(-100 reads the last 100 lines). 0 is not valid.',
    ),
  n_lines: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('How many lines to return at most (default: the line limit in the tool description). The character budget may stop it earlier.'),
});

export type ReadInput = z.infer<typeof ReadInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const READ_SAMPLES: readonly ReadInput[] = [{ path: 'src/a.ts' }, { path: 'src/a.ts', line_offset: -10 }, { path: 'new/missing.txt', n_lines: 3 }];
