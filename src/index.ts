import 'reflect-metadata';

// toolhost's public API: what a host or a tool author uses. Each tool family and feature has the
// rest of its surface at its own subpath (`toolhost/tools/os`, `toolhost/features/mcp`, …), and
// internals that advanced hosts need are at `toolhost/internals` (docs/architecture.md).
// tests/api/publicApi.test.ts pins these names, so a change to them is deliberate.

// Scopes and registration
export { App, createApp, configSchemaFor, type AppConfigInput, type CreateAppOptions } from './scopes/appScope';
export { Agent, AgentCreationError, type CreateAgentOptions } from './scopes/agentScope';
export { builtinFeatures, type BuiltinConfigInput } from './scopes/builtinFeatures';
export { Feature, defineFeature, type FeatureOptions, type FeatureConfigInput, type ScopeBindings } from './di/feature';
export { createServiceId, serviceIdName, type ServiceIdentifier } from './di/serviceId';
export {
  registerAgentToolService,
  ToolContributionError,
  TOOL_NAME_PATTERN,
  RUNTIME_CAPABILITIES,
  type AgentTool,
  type AgentToolContribution,
  type AgentToolContributionOptions,
  type RuntimeCapability,
  type ServiceAccessor,
} from './di/toolContribution';
export { IAgentStartup } from './di/agentStartup';
export { defineConfigSection, ConfigSectionError, type ConfigSection, type ConfigSectionInput, type ConfigSectionValue } from './di/configSection';

// What a tool author needs besides: the one inversify and zod toolhost itself uses, so a tool's
// decorators and schemas work with toolhost's container and schema emitter
export { injectable, inject, optional, preDestroy } from 'inversify';
export { z } from 'zod';

// The contract kit
export { checkToolConformance, type ToolConformanceOptions } from './tool/conformance';
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
export {
  toOpenAiTools,
  toOpenAiResponsesTools,
  toAnthropicTools,
  toModelTools,
  MODEL_TOOL_FORMATS,
  type ModelToolFormat,
  type ModelToolSpec,
  type OpenAiTool,
  type OpenAiResponsesTool,
  type AnthropicTool,
} from './tool/modelToolFormats';
export {
  toOpenAiChatMessages,
  toOpenAiResponsesItem,
  toAnthropicToolResult,
  type ModelToolResult,
  type OpenAiChatToolMessage,
  type OpenAiChatUserMessage,
  type OpenAiChatUserContentPart,
  type OpenAiResponsesFunctionCallOutput,
  type OpenAiResponsesOutputPart,
  type AnthropicToolResultBlock,
  type AnthropicToolResultContent,
  type AnthropicImageMediaType,
} from './tool/modelResultFormats';

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

// Configuration
export { IConfigService } from './services/config/config';
export { ConfigError, parseConfig, readConfigFile, readConfigFor, CONFIG_FILE_NAME, type ConfigIssue } from './services/config/configLoader';
export {
  CoreConfigSchema,
  ConfigCompositionError,
  type ComposedConfigSchema,
  type CoreConfig,
  type CoreConfigInput,
  type ToolhostConfig,
  type ToolhostConfigInput,
  type ToolPolicyConfig,
  type ApprovalConfig,
} from './services/config/configSchema';
export { watchConfigFile, type ConfigFileWatchOptions } from './services/config/configFileWatcher';

// The agent's services: contracts and identifiers
export { IAgentRuntimeService, type Runtime, type RuntimeFs, type RuntimeProcess, type RuntimeExecOptions, type RuntimeExecResult } from './services/runtime/runtime';
export { createLocalRuntime } from './services/runtime/localRuntime';
export { createBwrapRuntime, SandboxUnavailableError, type BwrapRuntimeOptions, type SandboxUnavailableReason } from './services/runtime/bwrapRuntime';
export { SANDBOX_MODES, type SandboxConfig, type SandboxConfigInput, type SandboxMode } from './services/runtime/sandboxConfig';
export type { RunningShell, ShellExit, ShellProcessOptions, OutputStreamName } from './base/shell/shellProcess';
export { IAgentWorkspaceService, isMainAgent, type AgentOptions } from './services/workspace/workspace';
export {
  IAgentStateStore,
  AgentStateError,
  assertAgentStateKey,
  updateAgentState,
  AGENT_STATE_KEY_PATTERN,
  MAX_AGENT_STATE_BYTES,
  type AgentStateEntry,
  type AgentStateOwner,
  type AgentStateReadOptions,
  type AgentStateWarning,
  type CompareAndSetResult,
  type JsonValue,
} from './services/agentState/agentState';
export { FileAgentStateStore, agentStateFilePath } from './services/agentState/fileAgentStateStore';
export { IClock, SystemClock } from './services/clock/clock';
export {
  IAgentPromptInjection,
  NO_PROMPT_INJECTION,
  hasPromptInjection,
  PROMPT_INJECTION_ORIGINS,
  type PromptInjectionOrigin,
  type PromptInjectionRequest,
  type PromptInjectionResult,
} from './services/promptInjection/promptInjection';
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
  type ToolActivationState,
  type ToolActivationStatus,
  type ToolActivationFailure,
} from './services/toolActivation/toolActivation';
export { IBuiltinToolAssemblyService, type ToolContributionChange, type DuplicateToolContribution } from './services/toolAssembly/builtinToolAssembly';

// The executor, approval, the output budget, the host interface
export {
  IAgentToolExecutorService,
  type ToolCall,
  type ToolCallResult,
  type ToolCallOutcome,
  type ExecuteOptions,
  type ToolCallResultSink,
  type ToolCallInfo,
  type BeforeExecuteContext,
  type WillExecuteContext,
  type DidExecuteContext,
  type BeforeExecuteListener,
  type WillExecuteListener,
  type AccessesChangedListener,
  type DidExecuteListener,
  type HookOptions,
  type BeforeHookOptions,
  type ToolCallGuard,
  type MissingToolDescriber,
  type ToolCallStartedEvent,
  type ToolProgressEvent,
  type ToolCallFinishedEvent,
  type ListenerErrorEvent,
} from './services/executor/toolExecutor';
export { IAgentToolApprovalService, IAgentSessionGrants, type ApprovalReview, type ApprovalReviewOptions } from './services/approval/toolApproval';
export { IAgentFactory, type ScopedAgent } from './services/agentFactory/agentFactory';
export {
  IAgentToolResultTruncationService,
  DEFAULT_TOOL_RESULT_MAX_CHARS,
  DEFAULT_TOOL_RESULT_MAX_RETAINED_CHARS,
  type TruncatedResult,
} from './services/truncation/toolResultTruncation';
export {
  ISessionInteractionService,
  NoInteractionHostError,
  ApprovalPendingError,
  type ApprovalRequest,
  type ApprovalResponse,
  type UserToolRequest,
  type UserToolResponse,
  type NotificationRequest,
  type QuestionRequest,
  type QuestionResponse,
  type QuestionAnswer,
  type UserQuestion,
  type PlanReviewRequest,
  type PlanReviewResponse,
  type InteractionKind,
  type InteractionRequest,
  type InteractionResponse,
  type InteractionRequests,
  type InteractionOrigin,
} from './services/interaction/interaction';
export { interactionHost, type InteractionHandler, type InteractionHandlers, type InteractionHostOptions } from './services/interaction/interactionHost';

// Host tools, deferred loading, the model
export { IAgentUserToolService, UserToolError, type UserToolRegistration } from './services/userTools/userTools';
export {
  IAgentToolSelectService,
  SELECT_TOOLS_NAME,
  DYNAMICALLY_LOADED_TOOLS_CAPABILITY,
  type ModelToolInfo,
  type LoadOutcome,
} from './services/toolSelect/toolSelect';
export { IAgentModelService, type ModelCapability } from './services/model/model';
export { IAppEnvironment, TOOL_SELECT_FLAG, type AppEnvironment } from './services/environment/environment';

// Builtin tool families and features: their factories, config sections, tool ids and the
// contracts hosts use (the rest at their subpaths)
export {
  createOsToolsFeature,
  readConfig,
  staleGuardConfig,
  bashConfig,
  globConfig,
  grepConfig,
  IReadTool,
  IWriteTool,
  IGlobTool,
  IGrepTool,
  IBashTool,
  IAgentFileStateService,
  type ReadConfig,
  type StaleGuardConfig,
  type BashConfig,
  type GlobConfig,
  type GrepConfig,
} from './tools/os';
export { createEditToolFeature, editConfig, IEditTool, type EditConfig } from './tools/edit';
export {
  createTaskToolsFeature,
  tasksConfig,
  ITaskListTool,
  ITaskOutputTool,
  ITaskStopTool,
  IWaitForTool,
  IAgentTaskService,
  type TasksConfig,
  type TaskInfo,
  type TaskStatus,
} from './tools/task';
export { createToolSelectFeature, ISelectToolsTool } from './tools/selectTools';
export { createAskUserFeature, IAskUserQuestionTool } from './tools/askUser';
export {
  createAgentFeature,
  agentConfig,
  IAgentTool,
  ISubagentRunner,
  ISubagentRunnerService,
  ScriptedSubagentRunner,
  type AgentConfig,
  type AgentHandle,
  type SubagentProfile,
  type SubagentRunEvent,
  type SubagentRunRequest,
  type SubagentRunResult,
  type SubagentUsage,
} from './tools/agent';
export { createNotifyFeature, INotifyUserTool, INotificationLimiter } from './features/notify';
export { createSwarmFeature, IAgentSwarmTool, swarmConfig, type SwarmConfig } from './features/swarm';
export {
  createMcpFeature,
  mcpServersConfig,
  IMcpConnectionManager,
  IAgentMcpService,
  McpCallError,
  qualifyMcpToolName,
  McpAgentServer,
  McpServeInteractions,
  type McpServerConfig,
  type McpServersConfig,
  type McpServerStatus,
  type McpWarning,
  type McpToolCollision,
  type McpToolInfo,
  type McpAgentServerOptions,
  type McpServeInteractionsOptions,
} from './features/mcp';

// Base utilities hosts need
export { Emitter, type Event } from './base/event';
export { DisposableStore, toDisposable, type IDisposable } from './base/lifecycle';
export { holdYoungGenerationSize } from './base/youngGeneration';
export { writeFileAtomic, type AtomicWriteSink, type AtomicWriteOptions, type AtomicWriteResult } from './base/fs/atomicWrite';
