import { z } from 'zod';
import type { ConfigSection } from '../../di/configSection';
import { tryParseRule } from '../../tool/ruleMatch';
import { SandboxConfigSchema } from '../runtime/sandboxConfig';

/**
 * toolhost.json: the core sections here, feature sections from the features an App is built from
 * (`Feature.contributeConfig`). Every object is strict: an unknown key is an error that names its
 * path, so a typo never silently does nothing. Each section has its defaults.
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

/** Enough for any batch a model sends; a batch of thousands does not hold every call's open files and buffers at once. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 64;

export const ExecutorConfigSchema = z.strictObject({
  abortGraceMs: z
    .number()
    .int()
    .nonnegative()
    .max(60_000)
    .default(2_000)
    .describe('After an abort, a tool that has not stopped is given up on after this long.'),
  maxConcurrentCalls: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(DEFAULT_MAX_CONCURRENT_CALLS)
    .describe('At most this many calls of one batch run at once; the others wait, earliest first.'),
});


/** The sections of the core: tool policy, profiles, approval, the output budget, the executor and the sandbox. */
export const CoreConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  tools: ToolsConfigSchema.prefault({}),
  profile: z.string().min(1).optional().describe('The profile agents use unless told otherwise.'),
  profiles: z.record(z.string().min(1), ToolPolicyConfigSchema).default({}),
  approval: ApprovalConfigSchema.prefault({}),
  toolResult: ToolResultConfigSchema.prefault({}),
  executor: ExecutorConfigSchema.prefault({}),
  sandbox: SandboxConfigSchema,
});

export type CoreConfig = z.output<typeof CoreConfigSchema>;
export type CoreConfigInput = z.input<typeof CoreConfigSchema>;
/** The validated configuration: the core sections, and each feature's under its key. */
export type ToolhostConfig = CoreConfig & { readonly [section: string]: unknown };
/** Raw configuration: the core sections typed, feature sections by key (validated by the App). */
export type ToolhostConfigInput = CoreConfigInput & { readonly [section: string]: unknown };
export type ToolPolicyConfig = z.output<typeof ToolPolicyConfigSchema>;
export type ApprovalConfig = z.output<typeof ApprovalConfigSchema>;

/**
 * The root schema of one App: the core and its features' sections, and for error messages the
 * sections known to belong to features the App was built without.
 */
export interface ComposedConfigSchema {
  readonly schema: z.ZodType<ToolhostConfig>;
  readonly sections: readonly ConfigSection[];
  /** Section key → id of a feature (not in this App) that brings it. */
  readonly absentOwners: ReadonlyMap<string, string>;
}

export class ConfigCompositionError extends Error {
  override readonly name = 'ConfigCompositionError';
}

/** Composes the root schema. A section key taken twice, or by the core, is an error. */
export function composeConfigSchema(
  sections: readonly { readonly section: ConfigSection; readonly owner: string }[],
  absentOwners: ReadonlyMap<string, string> = new Map(),
): ComposedConfigSchema {
  const owners = new Map<string, string>();
  const shape: Record<string, z.ZodType> = {};
  for (const { section, owner } of sections) {
    if (section.key in CoreConfigSchema.shape) throw new ConfigCompositionError(`Feature "${owner}" contributes config section "${section.key}", a section of the core.`);
    const taken = owners.get(section.key);
    if (taken !== undefined) throw new ConfigCompositionError(`Config section "${section.key}" is contributed by both feature "${taken}" and feature "${owner}".`);
    owners.set(section.key, owner);
    shape[section.key] = section.schema;
  }
  return {
    schema: (sections.length === 0 ? CoreConfigSchema : CoreConfigSchema.extend(shape)) as unknown as z.ZodType<ToolhostConfig>,
    sections: sections.map((s) => s.section),
    absentOwners: new Map([...absentOwners].filter(([key]) => !owners.has(key))),
  };
}

/** The core alone (no feature sections). */
export const CORE_CONFIG_SCHEMA: ComposedConfigSchema = composeConfigSchema([]);
