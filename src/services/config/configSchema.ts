import { z } from 'zod';

/**
 * toolhost.json. Every object is strict: an unknown key is an error that names its path, so a
 * typo never silently does nothing. Each section has its defaults here.
 */

const ToolNameList = z.array(z.string().min(1, 'must not be empty'));

export const ToolPolicyConfigSchema = z.strictObject({
  tools: ToolNameList.optional().describe('Allowlist: only these tools are active.'),
  disallowedTools: ToolNameList.optional().describe('Denylist: these tools are never active.'),
});

export const ToolsConfigSchema = z.strictObject({
  enabled: ToolNameList.default([]).describe('When non-empty, only these tools are active.'),
  disabled: ToolNameList.default([]).describe('These tools are never active.'),
});

export const DEFAULT_READ_MAX_CHARS = 50_000;
export const DEFAULT_READ_MAX_LINES = 2_000;
export const DEFAULT_READ_MAX_LINE_CHARS = 2_000;
export const DEFAULT_READ_LINE_COUNT_MAX_BYTES = 32 * 1024 * 1024;

export const ReadConfigSchema = z.strictObject({
  maxChars: z.number().int().min(1_000).default(DEFAULT_READ_MAX_CHARS).describe('Character budget of one Read result.'),
  maxLines: z.number().int().positive().default(DEFAULT_READ_MAX_LINES).describe('Lines returned when n_lines is not given.'),
  maxLineChars: z
    .number()
    .int()
    .min(100)
    .default(DEFAULT_READ_MAX_LINE_CHARS)
    .describe('Longer lines are cut with a visible marker.'),
  lineCountMaxBytes: z
    .number()
    .int()
    .nonnegative()
    .default(DEFAULT_READ_LINE_COUNT_MAX_BYTES)
    .describe('Files up to this size get an exact total line count; larger files are not scanned whole.'),
});

export const DEFAULT_GLOB_LIMIT = 100;
export const MAX_GLOB_LIMIT = 1_000;
export const DEFAULT_SEARCH_TIMEOUT_MS = 20_000;

export const GlobConfigSchema = z.strictObject({
  defaultLimit: z
    .number()
    .int()
    .min(1)
    .max(MAX_GLOB_LIMIT)
    .default(DEFAULT_GLOB_LIMIT)
    .describe('Paths returned when the call gives no limit.'),
  timeoutMs: z.number().int().min(1).default(DEFAULT_SEARCH_TIMEOUT_MS).describe('A Glob call stops after this long and returns what it found.'),
});

export const GREP_ENGINES = ['auto', 'ripgrep', 'builtin'] as const;
export type GrepEngineSetting = (typeof GREP_ENGINES)[number];
export const DEFAULT_GREP_HEAD_LIMIT = 250;
export const DEFAULT_GREP_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_GREP_MAX_LINE_CHARS = 500;

export const GrepConfigSchema = z.strictObject({
  engine: z
    .enum(GREP_ENGINES)
    .default('auto')
    .describe('auto: ripgrep when an rg binary is found and the runtime can start processes, else the builtin engine.'),
  rgPath: z.string().min(1).optional().describe('An rg binary to use before @vscode/ripgrep and rg on PATH.'),
  timeoutMs: z.number().int().min(1).default(DEFAULT_SEARCH_TIMEOUT_MS).describe('A Grep call stops after this long and returns partial results.'),
  maxOutputBytes: z
    .number()
    .int()
    .min(1)
    .default(DEFAULT_GREP_MAX_OUTPUT_BYTES)
    .describe('Matches kept in memory per call; past it the search stops with a partial-result notice.'),
  headLimit: z.number().int().min(1).default(DEFAULT_GREP_HEAD_LIMIT).describe('Results per page when the call gives no head_limit.'),
  maxLineChars: z.number().int().min(20).default(DEFAULT_GREP_MAX_LINE_CHARS).describe('Longer lines are cut, with a visible marker.'),
  workers: z.number().int().min(1).max(16).default(2).describe('Worker threads of the builtin engine.'),
});

export const ToolhostConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  tools: ToolsConfigSchema.prefault({}),
  profile: z.string().min(1).optional().describe('The profile agents use unless told otherwise.'),
  profiles: z.record(z.string().min(1), ToolPolicyConfigSchema).default({}),
  read: ReadConfigSchema.prefault({}),
  glob: GlobConfigSchema.prefault({}),
  grep: GrepConfigSchema.prefault({}),
});

export type ToolhostConfig = z.output<typeof ToolhostConfigSchema>;
export type ToolhostConfigInput = z.input<typeof ToolhostConfigSchema>;
export type ToolPolicyConfig = z.output<typeof ToolPolicyConfigSchema>;
export type ReadConfig = z.output<typeof ReadConfigSchema>;
export type GlobConfig = z.output<typeof GlobConfigSchema>;
export type GrepConfig = z.output<typeof GrepConfigSchema>;
