import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

/** The os family's sections of toolhost.json: read, staleGuard, bash, glob and grep. */

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
    .describe('Files up to this size are scanned whole: an exact total line count, and a content hash for the stale-write guard.'),
});

export const StaleGuardConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Refuse Write and Edit on an existing file this agent has not read, or that changed on disk since.'),
});

export const DEFAULT_BASH_TIMEOUT_S = 60;
export const DEFAULT_BASH_MAX_TIMEOUT_S = 300;

export const BashConfigSchema = z
  .strictObject({
    defaultTimeoutS: z
      .number()
      .int()
      .min(1)
      .default(DEFAULT_BASH_TIMEOUT_S)
      .describe('Timeout of a foreground command when the call gives none, in seconds.'),
    maxTimeoutS: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(DEFAULT_BASH_MAX_TIMEOUT_S)
      .describe('The largest `timeout` a call may ask for, in seconds; larger values are rejected, not clamped.'),
    killGraceMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(2_000)
      .describe('After SIGTERM to the process group (timeout, abort, TaskStop), how long before SIGKILL.'),
    drainMs: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(150)
      .describe('After the shell exits, how long to wait for output from processes still holding its pipes.'),
    outputHeadChars: z.number().int().min(1_000).default(30_000).describe('Characters kept from the start of the output.'),
    outputTailChars: z.number().int().min(1_000).default(18_000).describe('Characters kept from the end of the output.'),
    outputFileMaxBytes: z
      .number()
      .int()
      .min(1_048_576)
      .default(256 * 1024 * 1024)
      .describe('The full-output file (and a task log) stops growing at this size.'),
    stopLeftoverProcesses: z
      .boolean()
      .default(true)
      .describe("When a foreground command exits, stop the processes it left running (in its process group, or carrying its run marker after leaving the group). With false they run on until toolhost exits, when its watchdog ends them."),
  })
  .refine((bash) => bash.defaultTimeoutS <= bash.maxTimeoutS, {
    message: 'defaultTimeoutS must not be larger than maxTimeoutS',
    path: ['defaultTimeoutS'],
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
    .describe('Matches kept in memory per call; past it the search stops with a partial-result notice. Only what the page requested can show is kept (up to offset + head_limit); the other files are only counted.'),
  headLimit: z.number().int().min(1).default(DEFAULT_GREP_HEAD_LIMIT).describe('Results per page when the call gives no head_limit.'),
  maxLineChars: z.number().int().min(20).default(DEFAULT_GREP_MAX_LINE_CHARS).describe('Longer lines are cut, with a visible marker.'),
  workers: z.number().int().min(1).max(16).default(2).describe('Worker threads of the builtin engine, at most, for all calls of the App together; more calls wait for one.'),
});

export const readConfig = defineConfigSection('read', ReadConfigSchema.prefault({}));
export const staleGuardConfig = defineConfigSection('staleGuard', StaleGuardConfigSchema.prefault({}));
export const bashConfig = defineConfigSection('bash', BashConfigSchema.prefault({}));
export const globConfig = defineConfigSection('glob', GlobConfigSchema.prefault({}));
export const grepConfig = defineConfigSection('grep', GrepConfigSchema.prefault({}));

export type ReadConfig = z.output<typeof ReadConfigSchema>;
export type StaleGuardConfig = z.output<typeof StaleGuardConfigSchema>;
export type BashConfig = z.output<typeof BashConfigSchema>;
export type GlobConfig = z.output<typeof GlobConfigSchema>;
export type GrepConfig = z.output<typeof GrepConfigSchema>;
