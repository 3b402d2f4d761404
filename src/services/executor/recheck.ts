import { toolError } from '../../tool/contract';
import { type IAgentToolApprovalService, refusedApprovalOutcome } from '../approval/toolApproval';
import type { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { GAVE_UP } from './abortWatch';
import { abortedEnd, type CallEnd, describeError, skippedEnd } from './callEnd';
import type { BatchRun } from './execute';
import { normalizeToolResult } from './normalizeResult';
import type { ApprovedBy } from './prepare';
import { type Resolved, resolveCall, sameResolution } from './resolution';
import type { AccessesChangedListener, ToolCallInfo } from './toolExecutor';
import type { ScheduledTask } from './toolScheduler';

export interface RecheckDeps {
  readonly registry: IAgentToolRegistryService;
  readonly approval: IAgentToolApprovalService;
}

/** The call as it will run (resolved again, perhaps approved again), or how it ends instead. */
export type Rechecked = { readonly run: true; readonly info: ToolCallInfo } | { readonly run: false; readonly info: ToolCallInfo; readonly end: CallEnd };

/** Resolutions that may differ in a row before the call is given up (a link swapped back and forth). */
export const MAX_RESOLUTIONS = 3;

const disabledEnd = (name: string): CallEnd => ({
  result: toolError(`Tool "${name}" was disabled while the call waited to run, so it was not run.`),
  outcome: 'vetoed',
});

/**
 * Right before a call runs (the scheduler let it start): the registry must still hold the same
 * tool for its name, and the call is resolved again. Calls of a batch are resolved before any of
 * them runs, so a symbolic link an earlier call made is invisible to the first resolution. When
 * the new resolution touches other canonical paths or has another approval rule, approval runs
 * again on it and it replaces the first (and the will-listeners that asked are told the new
 * accesses); a read approved as an inside read is evaluated again even when its path is the same
 * (the file may now be a hard link). Never throws.
 */
export async function recheckBeforeRun(
  info: ToolCallInfo,
  task: ScheduledTask,
  prepared: { readonly approvedBy: ApprovedBy; readonly onAccessesChanged?: readonly AccessesChangedListener[] },
  run: BatchRun,
  deps: RecheckDeps,
): Promise<Rechecked> {
  const { approvedBy } = prepared;
  let current = info;
  let approvedAsInsideRead = isInsideReadDefault(approvedBy);
  for (let round = 0; round < MAX_RESOLUTIONS; round++) {
    const resolution = await resolveCall(info.tool, info.name, info.args, run.watch);
    if (!isSameTool(deps.registry, info)) return { run: false, info: current, end: disabledEnd(info.name) };
    if (!resolution.ok) return { run: false, info: current, end: resolution.end };
    const changed = !sameResolution(resolvedOf(current), resolution);
    if (!changed && !(approvedAsInsideRead && !stillAllowed(deps.approval, current))) return { run: true, info: current };

    const next: ToolCallInfo = changed ? { ...current, execution: resolution.execution, accesses: resolution.accesses } : current;
    let review;
    try {
      review = await run.watch.untilGraceOver(deps.approval.review(next));
    } catch (error) {
      if (info.signal.aborted) return { run: false, info: next, end: abortedEnd(info.name) };
      return { run: false, info: next, end: { result: toolError(`Approval failed for tool "${info.name}": ${describeError(error)}`), outcome: 'denied' } };
    }
    if (review === GAVE_UP) return { run: false, info: next, end: abortedEnd(info.name) };
    if (!review.approved) return { run: false, info: next, end: { result: normalizeToolResult(info.name, review.result), outcome: refusedApprovalOutcome(review) } };
    approvedAsInsideRead = isInsideReadDefault(review.decision);
    if (changed) {
      // It now touches other resources: it waits for calls it conflicts with, as any call does.
      if (!info.signal.aborted) await run.watch.untilAborted(run.scheduler.retarget(task, next.accesses));
      // Will-listeners that order calls beyond this batch (mcp serve's AccessGate) wait for the new ones too.
      for (const listener of prepared.onAccessesChanged ?? []) {
        if (info.signal.aborted) break;
        try {
          await run.watch.untilAborted(Promise.resolve(listener(next.accesses)));
        } catch (error) {
          if (info.signal.aborted) break;
          return { run: false, info: next, end: { result: toolError(`An onWillExecuteTool hook failed for tool "${info.name}" when its accesses changed: ${describeError(error)}`), outcome: 'vetoed' } };
        }
      }
      if (info.signal.aborted) return { run: false, info: next, end: abortedEnd(info.name) };
      if (run.stopped) return { run: false, info: next, end: skippedEnd() };
    }
    current = next;
  }
  return {
    run: false,
    info: current,
    end: {
      result: toolError(
        `Tool "${info.name}" was not run: the files it accesses kept changing while it waited to run (symbolic links were replaced). Check the paths, then retry the call.`,
      ),
      outcome: 'resolution-failed',
    },
  };
}

function resolvedOf(info: ToolCallInfo): Resolved {
  return { ok: true, execution: info.execution, accesses: info.accesses };
}

function isInsideReadDefault(approvedBy: ApprovedBy): boolean {
  return approvedBy?.kind === 'allow' && approvedBy.reason === 'read-only';
}

function isSameTool(registry: IAgentToolRegistryService, info: ToolCallInfo): boolean {
  try {
    return registry.get(info.name)?.tool === info.tool;
  } catch {
    return false;
  }
}

function stillAllowed(approval: IAgentToolApprovalService, info: ToolCallInfo): boolean {
  try {
    return approval.evaluate(info).kind === 'allow';
  } catch {
    return false;
  }
}
