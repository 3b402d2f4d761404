import 'reflect-metadata';

// Scopes and registration
export { createServiceId, serviceIdName, type ServiceIdentifier } from './scopes/serviceId';
export { App, createApp, type CreateAppOptions } from './scopes/appScope';
export { Agent, AgentCreationError, type CreateAgentOptions } from './scopes/agentScope';
export { Feature, defineFeature, type ScopeBindings } from './scopes/feature';
export {
  registerAgentToolService,
  IAgentToolContribution,
  ToolContributionError,
  TOOL_NAME_PATTERN,
  RUNTIME_CAPABILITIES,
  type AgentTool,
  type AgentToolContribution,
  type AgentToolContributionOptions,
  type RuntimeCapability,
  type ServiceAccessor,
} from './scopes/toolContribution';
export { CORE_APP_SERVICES } from './scopes/coreModules';

// The contract kit
export * from './tool/contract';
export * from './tool/accesses';
export { ToolInputDisplaySchema, TOOL_INPUT_DISPLAY_KINDS, type ToolInputDisplay, type ToolInputDisplayKind } from './tool/display';
export { toInputJsonSchema, closeObjectSchemas } from './tool/inputSchema';
export { renderPrompt, promptPlaceholders, PromptTemplateError, type PromptValues } from './tool/renderPrompt';
export { loadDescriptionTemplate } from './tool/descriptionTemplate';
export {
  resolvePathAccess,
  resolvePathAccessPath,
  PathSecurityError,
  isPathInside,
  canonicalizeExisting,
  type PathAccess,
  type PathAccessContext,
  type PathAccessVerb,
  type PathSecurityCode,
} from './tool/pathAccess';
export { isSensitivePath } from './tool/sensitivePaths';
export {
  parseRule,
  tryParseRule,
  RuleParseError,
  ruleMatches,
  ruleMatchesToolName,
  literalRule,
  escapeRuleText,
  matchPathRule,
  matchCommandRule,
  matchTextRule,
  type ParsedRule,
  type RuleSubject,
  type RuleMatchMode,
  type PathRuleContext,
} from './tool/ruleMatch';
export { parseShellCommand, type ParsedShellCommand, type SimpleCommand } from './tool/shellSplit';

// Tool policy
export {
  isToolActive,
  isToolActiveLayered,
  findBlockingToolPolicyLayer,
  type ToolPolicy,
  type ToolPolicyLayers,
  type ToolPolicyLayerName,
  type ToolPolicyOptions,
} from './toolPolicy/evaluate';
export {
  findInactiveToolPatterns,
  describeInactiveToolPattern,
  type InactiveToolPattern,
  type InactiveToolPatternReason,
} from './toolPolicy/findInactiveToolPatterns';
export { IAgentToolPolicyService } from './toolPolicy/toolPolicy';

// Services: contracts and identifiers
export { IConfigService, IInitialConfig } from './services/config/config';
export { ConfigError, parseConfig, loadConfigFile, loadConfigFor, CONFIG_FILE_NAME, type ConfigIssue } from './services/config/configLoader';
export { ToolhostConfigSchema, type ToolhostConfig, type ToolhostConfigInput, type ReadConfig, type ToolPolicyConfig } from './services/config/configSchema';
export { GREP_ENGINES, type GlobConfig, type GrepConfig, type GrepEngineSetting } from './services/config/configSchema';
export { IGrepEngineService, IRipgrepLocatorService, type GrepEngineChoice } from './services/grep/grepEngine';
export { IAgentRuntimeService, IInitialRuntime, type Runtime, type RuntimeFs } from './services/runtime/runtime';
export { createLocalRuntime } from './services/runtime/localRuntime';
export { IAgentWorkspaceService, IAgentOptions, type AgentOptions } from './services/workspace/workspace';
export { IAgentProfileService, ProfileError, DEFAULT_PROFILE_NAME, type AgentProfile, type ProfileSelection } from './services/profile/profile';
export {
  IAgentToolRegistryService,
  type ToolRegistration,
  type ToolRegistrationOptions,
  type ToolNameConflict,
  type ToolRegisterResult,
  type ToolRegistryChange,
} from './services/toolRegistry/toolRegistry';
export {
  IAgentToolActivationService,
  IAgentServiceAccessor,
  type ToolActivationState,
  type ToolActivationStatus,
  type ToolActivationFailure,
} from './services/toolActivation/toolActivation';
export {
  IBuiltinToolAssemblyService,
  type ToolContributionChange,
  type DuplicateToolContribution,
} from './services/toolAssembly/builtinToolAssembly';

// Builtin tools
export { builtinFeatures, createOsToolsFeature } from './tools/builtinFeatures';
export { ReadTool, IReadTool, readTool } from './tools/os/read/readTool';
export { ReadInputSchema, type ReadInput } from './tools/os/read/read';
export { GlobTool, IGlobTool, globTool } from './tools/os/glob/globTool';
export { GlobInputSchema, type GlobInput } from './tools/os/glob/glob';
export { GrepTool, IGrepTool, grepTool } from './tools/os/grep/grepTool';
export { GrepInputSchema, type GrepInput } from './tools/os/grep/grep';
export { type GrepEngine, type GrepEngineName, GrepEngineError } from './tools/os/grep/grepEngine';

// Base utilities hosts need
export { Emitter, type Event } from './base/event';
export { DisposableStore, toDisposable, type IDisposable } from './base/lifecycle';
