import { errorMessage } from '../../base/errors';
import { type ToolResult, toolError } from '../../tool/contract';
import type { IAgentToolApprovalService } from '../approval/toolApproval';
import { abortedEnd, type CallEnd, failedEnd } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import type { OrderedHook, OrderedHooks } from './orderedHooks';
import type { BeforeExecuteContext, BeforeExecuteListener, ToolCallInfo, ToolCallOutcome, WillExecuteContext, WillExecuteListener } from './toolExecutor';

/** Where approval runs among the before-execute listeners. */
export const APPROVAL_ORDER = 0;
/** Listeners run after approval unless they ask otherwise. */
export const DEFAULT_BEFORE_ORDER = 100;

export type Prepared = { readonly proceed: true; readonly metadata: Readonly<Record<string, unknown>> } | ({ readonly proceed: false } & CallEnd);

export interface PrepareDeps {
  readonly beforeHooks: OrderedHooks<BeforeExecuteListener>;
  readonly willHooks: OrderedHooks<WillExecuteListener>;
  readonly approval: IAgentToolApprovalService;
}

type Stop = { readonly proceed: false } & CallEnd;

function stop(result: ToolResult, outcome: ToolCallOutcome): Stop {
  return { proceed: false, result, outcome };
}

/**
 * Prepare one call: onBeforeExecuteTool listeners with approval among them, then
 * onWillExecuteTool. Never throws: a failing listener ends its own call.
 */
export async function prepare(info: ToolCallInfo, deps: PrepareDeps): Promise<Prepared> {
  try {
    const before = await runBeforeHooks(info, deps.beforeHooks.snapshot, deps.approval);
    // With no will-listeners the stage is skipped, which saves the call an await.
    if (!before.proceed || deps.willHooks.isEmpty) return before;
    const failure = await runWillHooks(info, deps.willHooks.snapshot);
    return failure ? stop(failure, 'vetoed') : before;
  } catch (error) {
    // Unreachable by design (every listener and approval is guarded); kept so nothing escapes `execute`.
    return { proceed: false, ...failedEnd(info.name, error) };
  }
}

/**
 * Listeners with a negative order, then approval (order 0), then the rest. `allow()` from a
 * listener that runs before approval approves the call; after it, it ends the round.
 */
async function runBeforeHooks(info: ToolCallInfo, hooks: readonly OrderedHook<BeforeExecuteListener>[], approval: IAgentToolApprovalService): Promise<Prepared> {
  let metadata: Readonly<Record<string, unknown>> = {};
  let veto: CallEnd | undefined;
  let allowed = false;
  let waits: Promise<unknown>[] | undefined;
  // One context per call, made only when a listener needs it.
  let ctx: BeforeExecuteContext | undefined;
  const context = (): BeforeExecuteContext =>
    (ctx ??= {
      ...info,
      veto: (result: ToolResult, outcome: ToolCallOutcome = 'vetoed') => {
        veto ??= { result, outcome };
      },
      allow: () => {
        allowed = true;
      },
      pass: (more: Readonly<Record<string, unknown>>) => {
        metadata = { ...metadata, ...more };
      },
      waitUntil: (work: Promise<unknown>) => {
        (waits ??= []).push(work);
      },
    });
  const runOne = (hook: OrderedHook<BeforeExecuteListener>) =>
    runBeforeHook(hook, info, context(), () => waits, () => (waits = undefined));

  let at = 0;
  for (; at < hooks.length && hooks[at]!.order < APPROVAL_ORDER; at++) {
    const failure = await runOne(hooks[at]!);
    if (failure) return failure;
    if (veto) return stop(normalizeToolResult(info.name, veto.result), veto.outcome);
    if (allowed) return { proceed: true, metadata };
  }
  try {
    const review = await approval.review(info);
    if (!review.approved) return stop(normalizeToolResult(info.name, review.result), review.aborted ? 'aborted' : 'denied');
  } catch (error) {
    if (info.signal.aborted) return { proceed: false, ...abortedEnd(info.name) };
    return stop(toolError(`Approval failed for tool "${info.name}": ${errorMessage(error)}`), 'denied');
  }
  for (; at < hooks.length; at++) {
    const failure = await runOne(hooks[at]!);
    if (failure) return failure;
    if (veto) return stop(normalizeToolResult(info.name, veto.result), veto.outcome);
    if (allowed) break;
  }
  return { proceed: true, metadata };
}

/** Runs one listener and the work it handed to `waitUntil`; a throw or rejection ends the call. */
async function runBeforeHook(
  hook: OrderedHook<BeforeExecuteListener>,
  info: ToolCallInfo,
  ctx: BeforeExecuteContext,
  pendingWaits: () => Promise<unknown>[] | undefined,
  clearWaits: () => void,
): Promise<Stop | undefined> {
  clearWaits();
  try {
    const returned = hook.listener(ctx);
    if (returned) await returned;
    const waits = pendingWaits();
    if (waits) await Promise.all(waits);
    return undefined;
  } catch (error) {
    if (info.signal.aborted) return { proceed: false, ...abortedEnd(info.name) };
    return stop(toolError(`onBeforeExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${errorMessage(error)}`), 'vetoed');
  }
}

/** The first listener that fails ends the call; the later ones are not run. */
async function runWillHooks(info: ToolCallInfo, hooks: readonly OrderedHook<WillExecuteListener>[]): Promise<ToolResult | undefined> {
  for (const hook of hooks) {
    const waits: Promise<unknown>[] = [];
    const ctx: WillExecuteContext = { ...info, waitUntil: (work) => void waits.push(work) };
    try {
      const returned = hook.listener(ctx);
      if (returned) await returned;
      if (waits.length > 0) await Promise.all(waits);
    } catch (error) {
      return toolError(`onWillExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${errorMessage(error)}`);
    }
  }
  return undefined;
}
