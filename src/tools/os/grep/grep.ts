import { z } from 'zod';

export const GREP_MAX_CONTEXT = 100;
export const GREP_OUTPUT_MODES = ['content', 'files_with_matches', 'count_matches'] as const;

const context = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(GREP_MAX_CONTEXT)
    .optional()
    .describe(`${what} (output_mode "content" only; at most ${GREP_MAX_CONTEXT}).`);

export const GrepInputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression in ripgrep (Rust regex) syntax, e.g. "fn\\s+\\w+", "TODO|FIXME", "import .* from \'react\'". ' +
        'Escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally ("foo\\(" finds "foo("). ' +
        'No look-around or backreferences. Matches never span lines unless multiline is true.',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'File or folder to search (default: the working directory). Relative paths resolve against the working directory; a path outside it must be absolute.',
    ),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files matching this glob, relative to the searched folder: "*.ts" (any depth), "src/**/*.ts", "*.{ts,tsx}". ' +
        'A leading "!" excludes instead: "!*.test.ts", "!vendor". Ignored when path is a file.',
    ),
  type: z
    .string()
    .optional()
    .describe('Only search files of this ripgrep file type, e.g. "ts", "js", "py", "rust", "go", "java", "md", "json", "yaml". Usually faster than glob for a language.'),
  output_mode: z
    .enum(GREP_OUTPUT_MODES)
    .optional()
    .describe(
      '"files_with_matches" (default): the paths of matching files, newest first. ' +
        '"content": the matching lines as path:line:text, with context lines if asked. ' +
        '"count_matches": the number of matches in each file.',
    ),
  '-i': z.boolean().optional().describe('Case-insensitive search (default false).'),
  '-n': z.boolean().optional().describe('Show line numbers in output_mode "content" (default true).'),
  '-A': context('Lines of context after each match'),
  '-B': context('Lines of context before each match'),
  '-C': context('Lines of context before and after each match; -A and -B override it for their side'),
  head_limit: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'At most this many results: matching lines (content; context lines do not count), files (files_with_matches, count_matches). ' +
        'Default: the limit in the tool description; 0 for no limit.',
    ),
  offset: z.number().int().min(0).optional().describe('Skip this many results first, to page (default 0). The result says which offset continues it.'),
  multiline: z
    .boolean()
    .optional()
    .describe('Let a match span lines: "." also matches newlines and "\\n" can be used (default false). Slower; use it only when a match must cross lines.'),
  include_ignored: z
    .boolean()
    .optional()
    .describe('Also search files ignored by .gitignore, .ignore or .rgignore, e.g. in node_modules or build output (default false).'),
});

export type GrepInput = z.infer<typeof GrepInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const GREP_SAMPLES: readonly GrepInput[] = [
  { pattern: 'export' },
  {
    pattern: 'class\\s+\\w+',
    path: 'src',
    glob: 'src/**/*.ts',
    type: 'ts',
    output_mode: 'content',
    '-i': true,
    '-n': false,
    '-C': 2,
    head_limit: 10,
    offset: 5,
  },
  { pattern: 'a\\nb', multiline: true, include_ignored: true, output_mode: 'count_matches', '-A': 1, '-B': 1 },
];
