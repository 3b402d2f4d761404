// The hooks feature's public surface (`toolhost/features/hooks`): command hooks from config `hooks`.
export { createHooksFeature } from './hooksFeature';
export { IAgentCommandHooksService, ICommandHookSessionId, type CommandHookProblem } from './commandHooks';
export { PRE_TOOL_USE_HOOK_ORDER } from './agentCommandHooksService';
export type { HookProblemKind } from './hookAnswer';
export { MAX_HOOK_OUTPUT_BYTES } from './hookCommandRunner';
export {
  hooksConfig,
  HooksConfigSchema,
  HookMatcherGroupSchema,
  CommandHookConfigSchema,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  MAX_HOOK_TIMEOUT_SECONDS,
  type HooksConfig,
  type HooksConfigInput,
  type HookMatcherGroup,
  type CommandHookConfig,
  type HookEventName,
} from './hooksConfig';
export { compileToolMatcher, type ToolNameMatcher } from './toolMatcher';
