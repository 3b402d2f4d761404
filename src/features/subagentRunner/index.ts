// The subagent runner feature's public surface (`toolhost/features/subagentRunner`): the OpenAI-compatible runner and its config.
export { createSubagentRunnerFeature } from './subagentRunnerFeature';
export {
  OpenAiChatSubagentRunner,
  type OpenAiChatRunnerOptions,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_MS,
} from './openAiChatRunner';
export { ISubagentRunnerConfigBinding, SubagentRunnerConfigBinding, runnerFromConfig } from './subagentRunnerBinding';
export { subagentRunnerConfig, SubagentRunnerConfigSchema, OpenAiRunnerConfigSchema, type SubagentRunnerConfig, type OpenAiRunnerConfig } from './subagentRunnerConfig';
export type { ChatMessage, ChatToolCall, ChatCompletionRequest, ChatCompletionAnswer, ChatFinishReason } from './chatCompletionsWire';
