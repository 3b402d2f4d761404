import { errorMessage } from '../../base/errors';
import { type ToolResult, toolError } from '../../tool/contract';
import type { ToolCallOutcome } from './toolExecutor';

/** How a call ended, before finalize turns it into a `ToolCallResult`. */
export interface CallEnd {
  readonly result: ToolResult;
  readonly outcome: ToolCallOutcome;
}

/** The endings several stages share, so the model always reads the same words. */
export function abortedEnd(toolName: string): CallEnd {
  return { result: toolError(`Tool "${toolName}" was aborted`), outcome: 'aborted' };
}

export function skippedEnd(): CallEnd {
  return { result: toolError('Tool skipped because a previous tool call stopped the turn.'), outcome: 'skipped' };
}

/** A tool that threw, or (unexpectedly) a stage of the executor itself. */
export function failedEnd(toolName: string, error: unknown): CallEnd {
  return { result: toolError(`Tool "${toolName}" failed: ${errorMessage(error)}`), outcome: 'executed' };
}
