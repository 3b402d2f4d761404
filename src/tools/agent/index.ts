// The agent tool family's public surface (`toolhost/tools/agent`): the subagent runner port and the Agent tool.
export { createAgentFeature } from './agentFeature';
export { agentConfig, AgentConfigSchema, DEFAULT_SUBAGENT_PROFILES, type AgentConfig, type SubagentProfileConfig } from './agentConfig';
export { AgentTool, IAgentTool, agentTool } from './agentTool';
export {
  ISubagentRunner,
  ISubagentRunnerService,
  type AgentHandle,
  type AgentHandleEvents,
  type SubagentProfile,
  type SubagentRunEvent,
  type SubagentRunRequest,
  type SubagentRunResult,
  type SubagentRunStatus,
  type SubagentUsage,
} from './contract';
export { SubagentRunnerService } from './subagentRunnerService';
export { ScriptedSubagentRunner, type ScriptedRun, type ScriptedToolCall, type SubagentScript } from './scriptedRunner';
