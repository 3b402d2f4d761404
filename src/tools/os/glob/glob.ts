import { z } from 'zod';
import { MAX_GLOB_LIMIT } from '../osConfig';

export const GlobInputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob pattern of the files to find, e.g. "**/*.ts", "src/**/*.test.ts", "**/package.json", "*.{md,txt}". ' +
        'A pattern without "/" matches file names at any depth ("*.md" finds every Markdown file); ' +
        'a pattern with "/" is matched from the search folder ("src/*.ts" only lists .ts files directly in src); "./*.md" matches only the top level. ' +
        'No "!" exclusions and no "..": to search elsewhere, set path.',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'Folder to search (default: the working directory). Relative paths resolve against the working directory; a folder outside it must be absolute. ' +
        'It must be a folder: to check a single file, use Read.',
    ),
  include_ignored: z
    .boolean()
    .optional()
    .describe(
      'Also list files ignored by .gitignore, .ignore or .rgignore (e.g. inside node_modules or build output). Default false. ' +
        'VCS folders (.git …) and files that hold secrets are never listed.',
    ),
  offset: z.number().int().min(0).optional().describe('Skip this many paths of the newest-first list (default 0); the result says which offset continues it.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_GLOB_LIMIT)
    .optional()
    .describe(`At most this many paths (default: the limit in the tool description; at most ${MAX_GLOB_LIMIT}).`),
});

export type GlobInput = z.infer<typeof GlobInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const GLOB_SAMPLES: readonly GlobInput[] = [{ pattern: '**/*.ts' }, { pattern: 'src/*.ts', path: 'src', include_ignored: true, offset: 10, limit: 5 }];
