import type { Context, Span, Tracer } from '@opentelemetry/api';
import { type AbortWatch, GAVE_UP } from './abortWatch';
import { abortedEnd, type CallEnd, failedEnd, isAbortError, skippedEnd } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import type { ToolCallInfo, ToolProgressEvent } from './toolExecutor';
import type { ScheduledTask, ToolScheduler } from './toolScheduler';
import { recordError } from './tracing';

/** What the calls of one batch share while they are scheduled and run. */
export interface BatchRun {
  readonly scheduler: ToolScheduler;
  readonly watch: AbortWatch;
  /** Set when a call that ran asked to stop the turn: calls that have not started are skipped. */
  stopped: boolean;
  /** Present when a host registered an OpenTelemetry tracer provider: calls get spans (tracing.ts). */
  readonly trace?: { readonly tracer: Tracer; readonly parent: Context };
}

/**
 * Schedule: waits until the call may start (no conflict with a running or earlier unfinished
 * call). Returns how the call ends instead of running, or undefined when it may run. The caller
 * finishes the task in the scheduler whatever happens.
 */
export async function schedule(info: ToolCallInfo, task: ScheduledTask, run: BatchRun): Promise<CallEnd | undefined> {
  // Racing the abort lets a queued call end at once instead of waiting for the calls ahead of it.
  if (!info.signal.aborted) await run.watch.untilAborted(run.scheduler.whenStartable(task));
  if (info.signal.aborted) return abortedEnd(info.name);
  if (run.stopped) return skippedEnd();
  return undefined;
}

/**
 * Execute: runs the tool with the batch's signal and the metadata prepare passed. Never throws:
 * a throw becomes an error result, and a tool that ignores an abort past the grace period is given
 * up on (its late result is discarded).
 */
export async function executeTool(
  info: ToolCallInfo,
  metadata: Readonly<Record<string, unknown>>,
  watch: AbortWatch,
  emitProgress: (event: ToolProgressEvent) => void,
  span?: Span,
): Promise<CallEnd> {
  try {
    // Through a promise, so a tool that throws synchronously is handled like one that rejects.
    const running = Promise.resolve().then(() =>
      info.execution.execute({
        toolCallId: info.toolCallId,
        signal: info.signal,
        metadata,
        onUpdate: (update) => {
          if (!info.signal.aborted) emitProgress({ toolCallId: info.toolCallId, name: info.name, update });
        },
      }),
    );
    const value = await watch.untilGraceOver(running);
    if (value === GAVE_UP) return abortedEnd(info.name);
    return { result: normalizeToolResult(info.name, value), outcome: info.signal.aborted ? 'aborted' : 'executed' };
  } catch (error) {
    if (info.signal.aborted || isAbortError(error)) return abortedEnd(info.name);
    if (span) recordError(span, error);
    return failedEnd(info.name, error);
  }
}
