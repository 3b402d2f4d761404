import { z } from 'zod';
import { errorMessage } from '../../base/errors';
import { defineConfigSection } from '../../di/configSection';
import { compileToolMatcher } from './toolMatcher';

/** Seconds a hook command may run when its entry gives no `timeout`. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
export const MAX_HOOK_TIMEOUT_SECONDS = 3600;

/** One hook of a group: `{type: "command", command, timeout?}` (timeout in seconds, as in Claude Code). */
export const CommandHookConfigSchema = z.strictObject({
  type: z.literal('command', { error: 'only "command" hooks are supported (type: "command")' }),
  command: z.string().trim().min(1, 'must not be empty: give the shell command to run'),
  timeout: z
    .number()
    .positive('must be more than 0 seconds')
    .max(MAX_HOOK_TIMEOUT_SECONDS, `must be at most ${MAX_HOOK_TIMEOUT_SECONDS} seconds`)
    .default(DEFAULT_HOOK_TIMEOUT_SECONDS)
    .describe('Seconds before the command is killed; a hook that times out does not block the call.'),
});

/** `{matcher?, hooks}`: the hooks run for every tool whose name the matcher matches. */
export const HookMatcherGroupSchema = z.strictObject({
  matcher: z
    .string()
    .optional()
    .superRefine((matcher, ctx) => {
      try {
        compileToolMatcher(matcher);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `is not a valid regular expression (${errorMessage(error)}); write an exact tool name, names separated by |, or a JavaScript regex` });
      }
    })
    .describe('Tool names: absent, "" or "*" for all; "Write|Edit" for exact names; otherwise a regex such as "mcp__github__.*".'),
  hooks: z.array(CommandHookConfigSchema).min(1, 'needs at least one hook'),
});

/** `hooks`: the event's groups, in the shape of Claude Code's settings. */
export const HooksConfigSchema = z.strictObject({
  PreToolUse: z.array(HookMatcherGroupSchema).default([]).describe('Before approval: a hook can allow, deny or ask, or block with exit code 2.'),
  PostToolUse: z.array(HookMatcherGroupSchema).default([]).describe('After a call ran: a hook can add context or feedback for the model.'),
});

export const hooksConfig = defineConfigSection(
  'hooks',
  HooksConfigSchema.prefault({}).describe('Command hooks run around tool calls (PreToolUse, PostToolUse), as in Claude Code settings.'),
);

export type CommandHookConfig = z.output<typeof CommandHookConfigSchema>;
export type HookMatcherGroup = z.output<typeof HookMatcherGroupSchema>;
export type HooksConfig = z.output<typeof HooksConfigSchema>;
export type HooksConfigInput = z.input<typeof HooksConfigSchema>;
/** The events hooks run for; other Claude Code events (Stop, SessionStart …) are config errors. */
export type HookEventName = keyof HooksConfig;
