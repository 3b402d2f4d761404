import 'reflect-metadata';

// Scopes and registration
export { createServiceId, serviceIdName, type ServiceIdentifier } from './di/serviceId';
export { App, createApp, configSchemaFor, type AppConfigInput, type CreateAppOptions } from './scopes/appScope';
export { type BuiltinConfigInput } from './scopes/builtinFeatures';
export { Agent, AgentCreationError, type CreateAgentOptions } from './scopes/agentScope';
export { Feature, defineFeature, type FeatureOptions, type FeatureConfigInput, type ScopeBindings } from './di/feature';
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
} from './di/toolContribution';
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
export { parseShellCommand, type ParsedShellCommand, type SimpleCommand, type Redirection } from './tool/shellSplit';

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
export { IAgentToolPolicyService } from './services/toolPolicy/toolPolicy';

// Services: contracts and identifiers
export { IConfigService } from './services/config/config';
export { ConfigError, parseConfig, readConfigFile, readConfigFor, CONFIG_FILE_NAME, type ConfigIssue } from './services/config/configLoader';
export {
  CoreConfigSchema,
  composeConfigSchema,
  ConfigCompositionError,
  type ComposedConfigSchema,
  type CoreConfig,
  type CoreConfigInput,
  type ToolhostConfig,
  type ToolhostConfigInput,
  type ToolPolicyConfig,
  type ApprovalConfig,
} from './services/config/configSchema';
export {
  defineConfigSection,
  ConfigSectionError,
  type ConfigSection,
  type ConfigSectionInput,
  type ConfigSectionValue,
} from './di/configSection';
export { readConfig, staleGuardConfig, bashConfig, globConfig, grepConfig, GREP_ENGINES } from './tools/os/osConfig';
export type { ReadConfig, StaleGuardConfig, BashConfig, GlobConfig, GrepConfig, GrepEngineSetting } from './tools/os/osConfig';
export { editConfig, type EditConfig } from './tools/edit/editConfig';
export { tasksConfig, type TasksConfig } from './tools/task/taskConfig';
export { IGrepEngineService, IRipgrepLocatorService, type GrepEngineChoice } from './tools/os/grep/grepEngineSelection';
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

export {
  IAgentTaskService,
  TaskLimitError,
  isTerminalStatus,
  type TaskInfo,
  type TaskStatus,
  type StartProcessTaskOptions,
  type TaskOutputRequest,
  type TaskOutputSlice,
  type TaskWaitResult,
} from './tools/task/contract';
export { AgentTaskService } from './tools/task/agentTaskService';

// The executor, approval, the output budget, the host interface
export {
  IAgentToolExecutorService,
  type ToolCall,
  type ToolCallResult,
  type ToolCallOutcome,
  type ExecuteOptions,
  type ToolCallInfo,
  type BeforeExecuteContext,
  type WillExecuteContext,
  type DidExecuteContext,
  type BeforeExecuteListener,
  type WillExecuteListener,
  type DidExecuteListener,
  type HookOptions,
  type ToolCallGuard,
  type MissingToolDescriber,
  type ToolCallStartedEvent,
  type ToolProgressEvent,
  type ToolCallFinishedEvent,
} from './services/executor/toolExecutor';
export { type BeforeHookOptions } from './services/executor/agentToolExecutorService';
export { ToolScheduler, type ScheduledTask } from './services/executor/toolScheduler';
export { normalizeToolResult } from './services/executor/normalizeResult';
export { IToolArgsValidatorService, type ArgsValidation } from './services/argsValidation/toolArgsValidator';
export { coerceArgs } from './services/argsValidation/coerceArgs';
export { IAgentToolApprovalService, type ApprovalReview } from './services/approval/toolApproval';
export { evaluateApproval, type ApprovalDecision, type ApprovalRules, type ApprovalSubject } from './services/approval/approvalPolicy';
export {
  IAgentToolResultTruncationService,
  DEFAULT_TOOL_RESULT_MAX_CHARS,
  DEFAULT_TOOL_RESULT_MAX_RETAINED_CHARS,
  SPILL_PREVIEW_HEAD_CHARS,
  SPILL_PREVIEW_TAIL_CHARS,
  type TruncatedResult,
} from './services/truncation/toolResultTruncation';
export {
  ISessionInteractionService,
  NoInteractionHostError,
  type ApprovalRequest,
  type ApprovalResponse,
  type UserToolRequest,
  type UserToolResponse,
  type NotificationRequest,
  type InteractionKind,
  type InteractionRequest,
  type InteractionResponse,
  type InteractionRequests,
} from './services/interaction/interaction';
export { NoHostInteractionService } from './services/interaction/noHostInteractionService';

// Host tools, deferred loading, model-facing tool lists
export { IAgentUserToolService, UserToolError, type UserToolRegistration } from './services/userTools/userTools';
export {
  IAgentToolSelectService,
  SELECT_TOOLS_NAME,
  DYNAMICALLY_LOADED_TOOLS_CAPABILITY,
  type ModelToolInfo,
  type LoadOutcome,
} from './services/toolSelect/toolSelect';
export { ANNOUNCEMENT_GUIDANCE } from './services/toolSelect/agentToolSelectService';
export { IAgentModelService, type ModelCapability } from './services/model/model';
export { IAppEnvironment, TOOL_SELECT_FLAG, isFlagOn, type AppEnvironment } from './services/environment/environment';
export {
  toOpenAiTools,
  toAnthropicTools,
  providerSchema,
  providerToolListProblems,
  PROVIDER_TOOL_NAME_PATTERN,
  MODEL_TOOL_FORMATS,
  type ModelToolFormat,
  type ModelToolSpec,
  type OpenAiTool,
  type AnthropicTool,
} from './tool/modelToolFormats';
export { IAgentStartup } from './di/agentStartup';

// Builtin tools
export { builtinFeatures } from './scopes/builtinFeatures';
export { createOsToolsFeature } from './tools/os/osFeature';
export { createEditToolFeature } from './tools/edit/editFeature';
export { createTaskToolsFeature } from './tools/task/taskFeature';
export { createToolSelectFeature } from './tools/selectTools/selectToolsFeature';
export { SelectToolsTool, ISelectToolsTool, selectToolsTool } from './tools/selectTools/selectToolsTool';
export { ReadTool, IReadTool, readTool } from './tools/os/read/readTool';
export { ReadInputSchema, type ReadInput } from './tools/os/read/read';
export { WriteTool, IWriteTool, writeTool } from './tools/os/write/writeTool';
export { WriteInputSchema, type WriteInput } from './tools/os/write/write';
export { writeFileAtomic, type AtomicWriteSink, type AtomicWriteOptions, type AtomicWriteResult } from './base/fs/atomicWrite';
export { EditTool, IEditTool, editTool } from './tools/edit/editTool';
export { EditInputSchema, type EditInput } from './tools/edit/edit';
export {
  IAgentFileStateService,
  type FileSnapshot,
  type CurrentFileState,
  type StaleWriteCheck,
} from './tools/os/contract';
export { BashTool, IBashTool, bashTool } from './tools/os/bash/bashTool';
export { createBashInputSchema, type BashInput } from './tools/os/bash/bash';
export { classifyCommand, isReadOnlySedScript, READ_ONLY_COMMANDS, type CommandClassification } from './tools/os/bash/readOnlyCommand';
export { GlobTool, IGlobTool, globTool } from './tools/os/glob/globTool';
export { GlobInputSchema, type GlobInput } from './tools/os/glob/glob';
export { GrepTool, IGrepTool, grepTool } from './tools/os/grep/grepTool';
export { GrepInputSchema, type GrepInput } from './tools/os/grep/grep';
export { type GrepEngine, type GrepEngineName, GrepEngineError } from './tools/os/grep/grepEngine';
export { TaskListTool, ITaskListTool, taskListTool } from './tools/task/taskList/taskListTool';
export { TaskOutputTool, ITaskOutputTool, taskOutputTool } from './tools/task/taskOutput/taskOutputTool';
export { TaskStopTool, ITaskStopTool, taskStopTool } from './tools/task/taskStop/taskStopTool';
export { WaitForTool, IWaitForTool, waitForTool } from './tools/task/waitFor/waitForTool';

// Serving an agent's tools over MCP (`toolhost mcp serve`)
export {
  McpAgentServer,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  DEFAULT_LIST_CHANGED_DELAY_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  type McpAgentServerOptions,
} from './features/mcp/serve/mcpAgentServer';
export {
  McpServeInteractions,
  approvalElicitation,
  approvalFromElicitation,
  type McpElicitor,
  type McpServeInteractionsOptions,
} from './features/mcp/serve/mcpServeInteractions';
export { toMcpTool, toMcpInputSchema, toCallToolResult, MCP_META_OUTCOME, MCP_META_OUTPUT_PATH } from './features/mcp/serve/mcpMapping';
export { AccessGate } from './features/mcp/serve/accessGate';
export { watchConfigFile, type ConfigFileWatchOptions } from './services/config/configFileWatcher';

// MCP servers as a tool source
export { qualifyMcpToolName, sanitizeMcpNamePart, fnv1a32Hex, mcpServerToolPrefix, MAX_QUALIFIED_TOOL_NAME_LENGTH } from './features/mcp/client/toolNaming';
export { mapMcpCallResult, mapMcpContentBlock, type McpCallToolAnswer } from './features/mcp/client/callResult';
export {
  McpServerConfigSchema,
  McpServersConfigSchema,
  mcpServersConfig,
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MCP_STARTUP_TIMEOUT_MS,
  type McpServerConfig,
  type McpServerConfigInput,
  type McpServersConfig,
  type McpTransportKind,
} from './features/mcp/mcpConfig';
export { expandEnvReferences } from './features/mcp/client/envExpansion';
export {
  IMcpConnectionManager,
  IMcpClientOptions,
  McpCallError,
  MAX_MCP_TOOL_DESCRIPTION_CHARS,
  type McpClientOptions,
  type McpServerState,
  type McpServerStatus,
  type McpToolDefinition,
  type McpWarning,
  type McpWarningCode,
  type McpToolCollision,
  type McpProgress,
  type McpCallOptions,
  type McpCallErrorKind,
} from './features/mcp/client/mcpConnections';
export { IAgentMcpService, type McpToolInfo, type McpToolsChange } from './features/mcp/client/agentMcp';
export { McpTool } from './features/mcp/client/mcpTool';
export { createMcpFeature } from './features/mcp/mcpFeature';

// Base utilities hosts need
export { Emitter, type Event } from './base/event';
export { DisposableStore, toDisposable, type IDisposable } from './base/lifecycle';
