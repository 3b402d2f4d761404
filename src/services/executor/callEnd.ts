import { errorMessage } from '../../base/errors';
import { type ToolResult, toolError } from '../../tool/contract';
import type { ToolCallOutcome } from './toolExecutor';

/** How a call ended, before finalize turns it into a `ToolCallResult`. */
export interface CallEnd {
  readonly result: ToolResult;
  readonly outcome: ToolCallOutcome;
}

/** What a thrown value is called when reading it throws (getters, Proxy traps, a throwing toString). */
export const UNPRINTABLE_ERROR = '<unprintable error>';

/** The bound on an error text in a result: a thrown value may carry megabytes. */
const MAX_ERROR_CHARS = 10_000;

/**
 * `errorMessage` for values tools and hooks throw: never throws itself, whatever the value's
 * getters or traps do, and always returns a bounded string.
 */
export function describeError(error: unknown): string {
  try {
    const text = errorMessage(error);
    if (typeof text !== 'string') return UNPRINTABLE_ERROR;
    return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
  } catch {
    return UNPRINTABLE_ERROR;
  }
}

/** Whether a thrown value says it is an abort (`name === 'AbortError'`); false when it cannot be read. */
export function isAbortError(error: unknown): boolean {
  try {
    return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
  } catch {
    return false;
  }
}

/** The endings several stages share, so the model always reads the same words. */
export function abortedEnd(toolName: string): CallEnd {
  return { result: toolError(`Tool "${toolName}" was aborted`), outcome: 'aborted' };
}

export function skippedEnd(message = 'Tool skipped because a previous tool call stopped the turn.'): CallEnd {
  return { result: toolError(message), outcome: 'skipped' };
}

/** A tool that threw, or (unexpectedly) a stage of the executor itself. */
export function failedEnd(toolName: string, error: unknown): CallEnd {
  return { result: toolError(`Tool "${toolName}" failed: ${describeError(error)}`), outcome: 'executed' };
}
