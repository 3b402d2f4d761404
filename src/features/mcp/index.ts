// The mcp feature's public surface (`toolhost/features/mcp`): MCP servers as a tool source, and
// serving an agent's tools over MCP.
export { createMcpFeature } from './mcpFeature';
export {
  mcpServersConfig,
  McpServerConfigSchema,
  McpServersConfigSchema,
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MCP_STARTUP_TIMEOUT_MS,
  type McpServerConfig,
  type McpServerConfigInput,
  type McpServersConfig,
  type McpTransportKind,
} from './mcpConfig';

// The client: servers from config `mcpServers`, their tools in every agent.
export {
  IMcpConnectionManager,
  IMcpClientOptions,
  McpCallError,
  MAX_MCP_TOOL_DESCRIPTION_CHARS,
  MAX_MCP_TOOL_DEPTH,
  MAX_MCP_TOOL_VALUES,
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
} from './client/mcpConnections';
export { IAgentMcpService, type McpToolInfo, type McpToolsChange } from './client/agentMcp';
export { McpTool } from './client/mcpTool';
export { qualifyMcpToolName, sanitizeMcpNamePart, fnv1a32Hex, mcpServerToolPrefix, MAX_QUALIFIED_TOOL_NAME_LENGTH } from './client/toolNaming';
export { mapMcpCallResult, mapMcpContentBlock, type McpCallToolAnswer } from './client/callResult';
export { expandEnvReferences } from './client/envExpansion';

// The server: `toolhost mcp serve`.
export {
  McpAgentServer,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  DEFAULT_LIST_CHANGED_DELAY_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  type McpAgentServerOptions,
  type McpCallPlan,
  type McpCallPlanner,
} from './serve/mcpAgentServer';
// Over Streamable HTTP: `toolhost mcp serve --http`.
export {
  McpHttpServer,
  McpHttpServeError,
  DEFAULT_MAX_AGENTS,
  DEFAULT_SESSION_IDLE_MS,
  AGENT_ID_PATTERN,
  INSTANCE_HEADER,
  type McpHttpServerOptions,
} from './serve/http/mcpHttpServer';
export { DEFAULT_MAX_BODY_BYTES, isLoopbackHost } from './serve/http/httpGuards';
export {
  SignedApprovals,
  signApproval,
  checkApprovalToken,
  parseApprovalToken,
  argsDigest,
  canonicalJson,
  MCP_META_APPROVAL_REQUEST,
  TOOL_CALL_ID_PATTERN,
  type ApprovalToken,
  type SignedApprovalRequest,
  type SignedApprovalsOptions,
} from './serve/http/signedApproval';
export {
  McpSamplingSubagentRunner,
  clientSamplesWithTools,
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SAMPLING_TIMEOUT_MS,
  type McpSamplingRunnerOptions,
} from './serve/mcpSamplingRunner';
export {
  McpServeInteractions,
  approvalElicitation,
  approvalFromElicitation,
  questionElicitation,
  questionFromElicitation,
  MCP_NOTIFY_LOGGER,
  MCP_META_QUESTION,
  type McpElicitor,
  type McpServeInteractionsOptions,
} from './serve/mcpServeInteractions';
export { toMcpTool, toMcpInputSchema, toCallToolResult, MCP_META_OUTCOME, MCP_META_OUTPUT_PATH, MCP_META_RESULT } from './serve/mcpMapping';
export { AccessGate } from './serve/accessGate';
export { McpStdioServerTransport, MCP_MESSAGE_TOO_LARGE_CODE, type McpStdioServerTransportOptions } from './serve/stdioServerTransport';
