import { errorMessage } from '../../base/errors';
import type { Emitter } from '../../base/event';
import { type ToolResult, toolError } from '../../tool/contract';
import type { IAgentToolResultTruncationService } from '../truncation/toolResultTruncation';
import type { CallEnd } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import type { OrderedHook, OrderedHooks } from './orderedHooks';
import type { DidExecuteContext, DidExecuteListener, ToolCall, ToolCallFinishedEvent, ToolCallInfo, ToolCallOutcome, ToolCallResult } from './toolExecutor';

export interface FinalizeDeps {
  readonly didHooks: OrderedHooks<DidExecuteListener>;
  readonly truncation: IAgentToolResultTruncationService;
  readonly finished: Emitter<ToolCallFinishedEvent>;
}

/**
 * Finalize one call: onDidExecuteTool listeners (only for calls that passed preflight, which
 * have a `ToolCallInfo`), the output budget, the result, and the ToolCallFinished event.
 * `startedAt` is when the tool started, or when settling a call that did not run began.
 */
export async function finalize(call: ToolCall, info: ToolCallInfo | undefined, end: CallEnd, startedAt: number, deps: FinalizeDeps): Promise<ToolCallResult> {
  let result = end.result;
  let stopTurn = end.result.stopTurn === true;
  if (info && !deps.didHooks.isEmpty) {
    result = await runDidHooks(info, end.outcome, result, deps.didHooks.snapshot, () => (stopTurn = true));
    if (result.stopTurn) stopTurn = true;
  }
  let outputPath: string | undefined;
  try {
    const truncated = await deps.truncation.truncateForModel(result, { toolName: call.name, toolCallId: call.id });
    result = truncated.result;
    outputPath = truncated.outputPath;
  } catch (error) {
    result = toolError(`The output of tool "${call.name}" could not be prepared for the model: ${errorMessage(error)}`);
  }
  const final: ToolCallResult = {
    toolCallId: call.id,
    name: call.name,
    output: result.output,
    isError: result.isError === true,
    outcome: end.outcome,
    truncated: result.truncated === true,
    ...(outputPath !== undefined ? { outputPath } : {}),
    ...(stopTurn ? { stopTurn: true } : {}),
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
  };
  deps.finished.fire({
    toolCallId: final.toolCallId,
    name: final.name,
    output: final.output,
    isError: final.isError,
    outcome: final.outcome,
    truncated: final.truncated,
    ...(outputPath !== undefined ? { outputPath } : {}),
    durationMs: final.durationMs,
  });
  return final;
}

/** Each listener sees the result so far and may replace it; the first that throws ends the round with its error. */
async function runDidHooks(
  info: ToolCallInfo,
  outcome: ToolCallOutcome,
  initial: ToolResult,
  hooks: readonly OrderedHook<DidExecuteListener>[],
  requestStopTurn: () => void,
): Promise<ToolResult> {
  let result = initial;
  for (const hook of hooks) {
    const ctx: DidExecuteContext = { ...info, outcome, result, stopTurn: requestStopTurn };
    try {
      const returned = hook.listener(ctx);
      if (returned) await returned;
      result = normalizeToolResult(info.name, ctx.result);
    } catch (error) {
      return toolError(`onDidExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${errorMessage(error)}`);
    }
  }
  return result;
}
