import { z } from 'zod';

/** The sandbox modes: `none` runs commands as they are, `bwrap` under bubblewrap (bwrapRuntime.ts). */
export const SANDBOX_MODES = ['none', 'bwrap'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

const modeMessage = `must be one of ${SANDBOX_MODES.map((m) => JSON.stringify(m)).join(', ')}`;
const SandboxModeSchema = z.enum(SANDBOX_MODES, { error: modeMessage });

const SandboxObjectSchema = z.strictObject({
  mode: SandboxModeSchema.describe('"bwrap" runs Bash and background tasks under bubblewrap; "none" runs them as they are.'),
  network: z.boolean().default(false).describe('Let sandboxed commands reach the network (default: no network at all).'),
  writable: z
    .array(z.string().min(1, 'must not be empty'))
    .default([])
    .describe('More folders sandboxed commands may write, besides the workspace and their private temporary folder (absolute, or relative to the working directory; each must exist).'),
  bwrapPath: z.string().min(1, 'must not be empty').optional().describe('The bubblewrap binary (default: `bwrap` on PATH).'),
});

/** The sandbox of Bash and background tasks, with every key filled in. */
export interface SandboxConfig {
  readonly mode: SandboxMode;
  readonly network: boolean;
  readonly writable: readonly string[];
  readonly bwrapPath?: string;
}

/** What config `sandbox` may hold. */
export type SandboxConfigInput = SandboxMode | z.input<typeof SandboxObjectSchema>;

function sandboxIssueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.path.length === 0) {
    return `must be ${SANDBOX_MODES.map((m) => JSON.stringify(m)).join(' or ')}, or an object {"mode": …, "network": …, "writable": […]}`;
  }
  if (issue.code === 'unrecognized_keys') return `${issue.message}; the keys are ${Object.keys(SandboxObjectSchema.shape).join(', ')}`;
  return issue.message;
}

/**
 * Config `sandbox`: a mode (`"none"`, `"bwrap"`), or an object with the mode and its options.
 * Either way it becomes a SandboxConfig. A string is checked as a mode and anything else as the
 * object, so an error names the key that is wrong (a union would only say "invalid input").
 */
export const SandboxConfigSchema = z
  .custom<SandboxConfigInput>(() => true)
  .optional()
  .transform((value, ctx): SandboxConfig => {
    if (value === undefined) return { mode: 'none', network: false, writable: [] };
    const parsed = typeof value === 'string' ? SandboxModeSchema.safeParse(value) : SandboxObjectSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', path: issue.path, message: sandboxIssueMessage(issue) });
      }
      return z.NEVER;
    }
    return typeof parsed.data === 'string' ? { mode: parsed.data, network: false, writable: [] } : parsed.data;
  })
  .describe('Runs Bash and background tasks in a sandbox (docs/configuration.md, "Sandbox").');
