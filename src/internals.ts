import 'reflect-metadata';

// `toolhost/internals`: building blocks that advanced hosts use (a custom executor front end, a
// server that orders calls across batches, tests of their own tools). They are stable enough to
// use but not part of the main API; docs/architecture.md says what each is for.
export { ToolScheduler, type ScheduledTask } from './services/executor/toolScheduler';
export { normalizeToolResult } from './services/executor/normalizeResult';
export { OrderedHooks } from './services/executor/orderedHooks';
export { coerceArgs } from './services/argsValidation/coerceArgs';
export { IToolArgsValidatorService, type ArgsValidation } from './services/argsValidation/toolArgsValidator';
export { evaluateApproval, type ApprovalDecision, type ApprovalRules, type ApprovalSubject } from './services/approval/approvalPolicy';
export { SPILL_PREVIEW_HEAD_CHARS, SPILL_PREVIEW_TAIL_CHARS } from './services/truncation/toolResultTruncation';
export { NoHostInteractionService } from './services/interaction/noHostInteractionService';
export { IAgentServiceAccessor } from './services/toolActivation/toolActivation';
export { ANNOUNCEMENT_GUIDANCE } from './services/toolSelect/agentToolSelectService';
export { isFlagOn } from './services/environment/environment';
export { IInitialConfig, IInitialConfigSchema } from './services/config/config';
export { composeConfigSchema, CORE_CONFIG_SCHEMA } from './services/config/configSchema';
export { IInitialRuntime } from './services/runtime/runtime';
export { IAgentOptions } from './services/workspace/workspace';
export { IAgentToolContribution } from './di/toolContribution';
export { CORE_APP_SERVICES, coreAppModule, coreAgentModule } from './scopes/coreModules';
export { parseShellCommand, type ParsedShellCommand, type SimpleCommand, type Redirection, type WordExpansions } from './tool/shellSplit';
export { providerSchema, providerToolListProblems, PROVIDER_TOOL_NAME_PATTERN } from './tool/modelToolFormats';
export { RerunUntilStable } from './base/rerunUntilStable';
export { packageVersion } from './base/packageInfo';
