import { z } from 'zod';
import { McpServersConfigSchema } from '../../mcp/mcpConfig';
import { tryParseRule } from '../../tool/ruleMatch';

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
    .describe('Files up to this size are scanned whole: an exact total line count, and a content hash for the stale-write guard.'),
});

export const DEFAULT_EDIT_MAX_FILE_BYTES = 128 * 1024 * 1024;

export const EditConfigSchema = z.strictObject({
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(DEFAULT_EDIT_MAX_FILE_BYTES)
    .describe('Edit refuses files larger than this (it holds the file in memory once while it edits).'),
});

export const StaleGuardConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Refuse Write and Edit on an existing file this agent has not read, or that changed on disk since.'),
});

/** An approval rule; a malformed one is a config error, not a rule that silently never matches. */
const ApprovalRule = z.string().superRefine((text, ctx) => {
  const parsed = tryParseRule(text);
  if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
});

export const ApprovalConfigSchema = z.strictObject({
  allow: z.array(ApprovalRule).default([]).describe('Calls these rules cover run without asking.'),
  ask: z.array(ApprovalRule).default([]).describe('Calls these rules match always ask, even when an allow rule covers them.'),
  deny: z.array(ApprovalRule).default([]).describe('Calls these rules match are refused.'),
});

export const DEFAULT_TOOL_RESULT_MAX_CHARS = 50_000;
export const DEFAULT_TOOL_RESULT_MAX_RETAINED_CHARS = 10_000_000;

export const ToolResultConfigSchema = z.strictObject({
  maxChars: z.number().int().min(5_000).default(DEFAULT_TOOL_RESULT_MAX_CHARS).describe('Longer tool output is saved to a file and replaced by a pointer.'),
  maxRetainedChars: z
    .number()
    .int()
    .positive()
    .default(DEFAULT_TOOL_RESULT_MAX_RETAINED_CHARS)
    .describe('At most this much of a long output is saved.'),
});

export const ExecutorConfigSchema = z.strictObject({
  abortGraceMs: z
    .number()
    .int()
    .nonnegative()
    .max(60_000)
    .default(2_000)
    .describe('After an abort, a tool that has not stopped is given up on after this long.'),
});

export const ToolhostConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  tools: ToolsConfigSchema.prefault({}),
  profile: z.string().min(1).optional().describe('The profile agents use unless told otherwise.'),
  profiles: z.record(z.string().min(1), ToolPolicyConfigSchema).default({}),
  read: ReadConfigSchema.prefault({}),
  approval: ApprovalConfigSchema.prefault({}),
  toolResult: ToolResultConfigSchema.prefault({}),
  executor: ExecutorConfigSchema.prefault({}),
  edit: EditConfigSchema.prefault({}),
  staleGuard: StaleGuardConfigSchema.prefault({}),
  mcpServers: McpServersConfigSchema.default({}).describe('MCP servers whose tools the agents use, by name.'),
});

export type ToolhostConfig = z.output<typeof ToolhostConfigSchema>;
export type ToolhostConfigInput = z.input<typeof ToolhostConfigSchema>;
export type ToolPolicyConfig = z.output<typeof ToolPolicyConfigSchema>;
export type ReadConfig = z.output<typeof ReadConfigSchema>;
export type ApprovalConfig = z.output<typeof ApprovalConfigSchema>;
export type EditConfig = z.output<typeof EditConfigSchema>;
export type StaleGuardConfig = z.output<typeof StaleGuardConfigSchema>;
