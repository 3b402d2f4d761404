import { createServiceId } from '../../di/serviceId';
import type { ToolResult } from '../../tool/contract';

export { DEFAULT_TOOL_RESULT_MAX_CHARS, DEFAULT_TOOL_RESULT_MAX_RETAINED_CHARS } from '../config/configSchema';
export const SPILL_PREVIEW_HEAD_CHARS = 4096;
export const SPILL_PREVIEW_TAIL_CHARS = 1024;

export interface TruncatedResult {
  readonly result: ToolResult;
  /** The file holding the full output, when it was written. */
  readonly outputPath?: string;
}

/**
 * The output budget at the executor's exit (Agent scope): text over `toolResult.maxChars` is
 * written whole (up to `toolResult.maxRetainedChars`) to a file of its own under the agent's data
 * directory, and the result becomes a pointer with a preview of its head and tail.
 */
export interface IAgentToolResultTruncationService {
  truncateForModel(result: ToolResult, call: { readonly toolName: string; readonly toolCallId: string }): Promise<TruncatedResult>;
  /** The folder spilled outputs go to. */
  readonly spillDirectory: string;
}
export const IAgentToolResultTruncationService = createServiceId<IAgentToolResultTruncationService>('AgentToolResultTruncationService');
