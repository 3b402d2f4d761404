import { toolError } from '../../tool/contract';
import type { IAgentToolResultTruncationService } from '../truncation/toolResultTruncation';
import { type AbortWatch, GAVE_UP } from './abortWatch';
import { abortedEnd, type CallEnd, describeError } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import { hookContext } from './prepare';
import type { OrderedHook, OrderedHooks } from './orderedHooks';
import type { DidExecuteContext, DidExecuteListener, ToolCall, ToolCallInfo, ToolCallResult } from './toolExecutor';

export interface FinalizeDeps {
  readonly didHooks: OrderedHooks<DidExecuteListener>;
  readonly truncation: IAgentToolResultTruncationService;
  /** A did-hook threw: reported beside the result, never in it. */
  readonly reportHookError: (hook: string, toolCallId: string, error: unknown) => void;
}

/**
 * Finalize one call: onDidExecuteTool listeners (only for calls that passed preflight, which
 * have a `ToolCallInfo`), the output budget, and the result; the caller fires ToolCallFinished.
 * `startedAt` is when the tool started, or when settling a call that did not run began.
 */
export async function finalize(
  call: ToolCall,
  info: ToolCallInfo | undefined,
  end: CallEnd,
  startedAt: number,
  watch: AbortWatch,
  deps: FinalizeDeps,
): Promise<ToolCallResult> {
  let result = end.result;
  let outcome = end.outcome;
  let stopTurn = end.result.stopTurn === true;
  if (info && !deps.didHooks.isEmpty) {
    const after = await runDidHooks(info, end, deps.didHooks.snapshot, watch, () => (stopTurn = true), deps.reportHookError);
    result = after.result;
    outcome = after.outcome;
    if (result.stopTurn) stopTurn = true;
  }
  let outputPath: string | undefined;
  try {
    const truncated = await deps.truncation.truncateForModel(result, { toolName: call.name, toolCallId: call.id });
    result = truncated.result;
    // The executor's spill file, or the one the tool saved itself (Bash): every spilled result names its file.
    outputPath = truncated.outputPath ?? (typeof result.outputPath === 'string' ? result.outputPath : undefined);
  } catch (error) {
    result = toolError(`The output of tool "${call.name}" could not be prepared for the model: ${describeError(error)}`);
  }
  return {
    toolCallId: call.id,
    name: call.name,
    output: result.output,
    isError: result.isError === true,
    outcome,
    truncated: result.truncated === true,
    ...(outputPath !== undefined ? { outputPath } : {}),
    ...(stopTurn ? { stopTurn: true } : {}),
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.metadata !== undefined ? { metadata: result.metadata } : {}),
    durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
  };
}

/**
 * Each listener sees the result so far and may replace it. One that throws is reported and its
 * changes are dropped: the tool has run, so turning its result into an error would have the model
 * retry a side effect that already happened. One that does not settle after the batch was aborted
 * and the grace period passed ends the call aborted.
 */
async function runDidHooks(
  info: ToolCallInfo,
  end: CallEnd,
  hooks: readonly OrderedHook<DidExecuteListener>[],
  watch: AbortWatch,
  requestStopTurn: () => void,
  reportHookError: FinalizeDeps['reportHookError'],
): Promise<CallEnd> {
  let result = end.result;
  for (const hook of hooks) {
    const ctx: DidExecuteContext = hookContext(info, { outcome: end.outcome, result, stopTurn: requestStopTurn });
    try {
      const returned = hook.listener(ctx);
      if (returned && (await watch.untilGraceOver(returned)) === GAVE_UP) return abortedEnd(info.name);
      result = normalizeToolResult(info.name, ctx.result);
    } catch (error) {
      reportHookError(hook.name, info.toolCallId, error);
    }
  }
  return { result, outcome: end.outcome };
}
