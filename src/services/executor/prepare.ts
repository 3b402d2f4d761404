import { type ToolResult, toolError } from '../../tool/contract';
import { type ApprovalReview, type IAgentToolApprovalService, refusedApprovalOutcome } from '../approval/toolApproval';
import { type AbortWatch, GAVE_UP } from './abortWatch';
import { abortedEnd, type CallEnd, describeError, failedEnd } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import type { OrderedHook, OrderedHooks } from './orderedHooks';
import type { AccessesChangedListener, BeforeExecuteContext, BeforeExecuteListener, ToolCallInfo, ToolCallOutcome, WillExecuteContext, WillExecuteListener } from './toolExecutor';
import type { ToolCallSpan } from './tracing';

/** Where approval runs among the before-execute listeners. */
export const APPROVAL_ORDER = 0;
/** Listeners run after approval unless they ask otherwise. */
export const DEFAULT_BEFORE_ORDER = 100;

/** How approval let a call through; undefined when a listener that runs before approval allowed it. */
export type ApprovedBy = Extract<ApprovalReview, { approved: true }>['decision'] | undefined;

export type Prepared =
  | {
      readonly proceed: true;
      readonly metadata: Readonly<Record<string, unknown>>;
      readonly approvedBy: ApprovedBy;
      /** What will-listeners asked to hear when a recheck changes the call's accesses. */
      readonly onAccessesChanged?: readonly AccessesChangedListener[];
    }
  | ({ readonly proceed: false } & CallEnd);

export interface PrepareDeps {
  readonly beforeHooks: OrderedHooks<BeforeExecuteListener>;
  readonly willHooks: OrderedHooks<WillExecuteListener>;
  readonly approval: IAgentToolApprovalService;
}

type Stop = { readonly proceed: false } & CallEnd;

function stop(result: ToolResult, outcome: ToolCallOutcome): Stop {
  return { proceed: false, result, outcome };
}

function abortedStop(info: ToolCallInfo): Stop {
  return { proceed: false, ...abortedEnd(info.name) };
}

const VETO_OUTCOMES: readonly ToolCallOutcome[] = ['vetoed', 'denied', 'aborted', 'needs_approval'];

/**
 * Prepare one call: onBeforeExecuteTool listeners with approval among them, then
 * onWillExecuteTool. Never throws: a failing listener ends its own call. Every await races the
 * batch's abort: a listener or host that does not settle is given up on after the grace period.
 */
export async function prepare(info: ToolCallInfo, watch: AbortWatch, deps: PrepareDeps, span?: ToolCallSpan): Promise<Prepared> {
  try {
    const before = await runBeforeHooks(info, deps.beforeHooks.snapshot, deps.approval, watch, span);
    // With no will-listeners the stage is skipped, which saves the call an await.
    if (!before.proceed || deps.willHooks.isEmpty) return before;
    const changeListeners: AccessesChangedListener[] = [];
    const failure = await runWillHooks(info, deps.willHooks.snapshot, watch, changeListeners);
    return failure ?? (changeListeners.length > 0 ? { ...before, onAccessesChanged: changeListeners } : before);
  } catch (error) {
    // Unreachable by design (every listener and approval is guarded); kept so nothing escapes
    // `execute`. The tool has not run, so the call is vetoed, not executed.
    return { proceed: false, result: failedEnd(info.name, error).result, outcome: 'vetoed' };
  }
}

/**
 * A hook's context: the call's info field by field, then the hook's own members. Made on every
 * call a hook runs for; a spread of the info itself (whose shape varies between tools) costs
 * several times more.
 */
export function hookContext<E extends object>(info: ToolCallInfo, extra: E): ToolCallInfo & E {
  const base = {
    toolCallId: info.toolCallId,
    name: info.name,
    args: info.args,
    tool: info.tool,
    source: info.source,
    execution: info.execution,
    defaultApproval: info.defaultApproval,
    accesses: info.accesses,
    batch: info.batch,
    signal: info.signal,
    ...extra,
  };
  return base as ToolCallInfo & E;
}

/** Work handed to `waitUntil`, tracked at once: one that rejects after its call was settled is no unhandled rejection. */
function tracked(work: unknown): Promise<unknown> {
  const settled = new Promise<unknown>((resolve) => resolve(work));
  settled.catch(() => undefined);
  return settled;
}

/**
 * Listeners with a negative order, then approval (order 0), then the rest. `allow()` from a
 * listener that runs before approval approves the call; after it, it ends the round. `approve()`
 * before approval approves the call too, but every later listener still runs and may veto it.
 */
async function runBeforeHooks(
  info: ToolCallInfo,
  hooks: readonly OrderedHook<BeforeExecuteListener>[],
  approval: IAgentToolApprovalService,
  watch: AbortWatch,
  span: ToolCallSpan | undefined,
): Promise<Prepared> {
  let metadata: Readonly<Record<string, unknown>> = {};
  let veto: CallEnd | undefined;
  let allowed = false;
  let approvedEarly = false;
  let waits: Promise<unknown>[] | undefined;
  // One context per call, made only when a listener needs it.
  let ctx: BeforeExecuteContext | undefined;
  const context = (): BeforeExecuteContext =>
    (ctx ??= hookContext(info, {
      veto: (result: ToolResult, outcome: ToolCallOutcome = 'vetoed') => {
        veto ??= { result, outcome: VETO_OUTCOMES.includes(outcome) ? outcome : 'vetoed' };
      },
      allow: () => {
        allowed = true;
      },
      approve: () => {
        approvedEarly = true;
      },
      pass: (more: Readonly<Record<string, unknown>>) => {
        metadata = { ...metadata, ...more };
      },
      waitUntil: (work: Promise<unknown>) => {
        (waits ??= []).push(tracked(work));
      },
    }));
  const runOne = (hook: OrderedHook<BeforeExecuteListener>) =>
    runBeforeHook(hook, info, context(), watch, () => waits, () => (waits = undefined));

  let at = 0;
  for (; at < hooks.length && hooks[at]!.order < APPROVAL_ORDER; at++) {
    const ran = runOne(hooks[at]!);
    const failure = ran instanceof Promise ? await ran : ran;
    if (failure) return failure;
    if (veto) return stop(normalizeToolResult(info.name, veto.result), veto.outcome);
    if (allowed) return { proceed: true, metadata, approvedBy: undefined };
  }
  // A listener that asked the person itself (approve()) settled approval: it is not asked again.
  let approvedBy: ApprovedBy = undefined;
  if (!approvedEarly) {
    const approvalSpan = span?.startApproval();
    try {
      const review = await watch.untilGraceOver(approval.review(info));
      approvalSpan?.end(review === GAVE_UP ? undefined : review);
      if (review === GAVE_UP) return abortedStop(info);
      if (!review.approved) return stop(normalizeToolResult(info.name, review.result), refusedApprovalOutcome(review));
      approvedBy = review.decision;
    } catch (error) {
      approvalSpan?.end(undefined, error);
      if (info.signal.aborted) return abortedStop(info);
      return stop(toolError(`Approval failed for tool "${info.name}": ${describeError(error)}`), 'denied');
    }
  }
  for (; at < hooks.length; at++) {
    const ran = runOne(hooks[at]!);
    const failure = ran instanceof Promise ? await ran : ran;
    if (failure) return failure;
    if (veto) return stop(normalizeToolResult(info.name, veto.result), veto.outcome);
    if (allowed) break;
  }
  return { proceed: true, metadata, approvedBy };
}

/**
 * Runs one listener and the work it handed to `waitUntil`; a throw or rejection ends the call. A
 * listener that decides synchronously and hands over no work is answered without an await, so a
 * hook that lets most calls through (no matching command hook) costs them almost nothing.
 */
function runBeforeHook(
  hook: OrderedHook<BeforeExecuteListener>,
  info: ToolCallInfo,
  ctx: BeforeExecuteContext,
  watch: AbortWatch,
  pendingWaits: () => Promise<unknown>[] | undefined,
  clearWaits: () => void,
): Stop | undefined | Promise<Stop | undefined> {
  clearWaits();
  let returned: void | Promise<void>;
  try {
    returned = hook.listener(ctx);
  } catch (error) {
    return beforeHookFailed(hook, info, error);
  }
  if (!returned && !pendingWaits()) return undefined;
  return settleBeforeHook(hook, info, returned, watch, pendingWaits);
}

async function settleBeforeHook(
  hook: OrderedHook<BeforeExecuteListener>,
  info: ToolCallInfo,
  returned: void | Promise<void>,
  watch: AbortWatch,
  pendingWaits: () => Promise<unknown>[] | undefined,
): Promise<Stop | undefined> {
  try {
    if (returned && (await watch.untilGraceOver(returned)) === GAVE_UP) return abortedStop(info);
    const waits = pendingWaits();
    if (waits && (await watch.untilGraceOver(Promise.all(waits))) === GAVE_UP) return abortedStop(info);
    return undefined;
  } catch (error) {
    return beforeHookFailed(hook, info, error);
  }
}

function beforeHookFailed(hook: OrderedHook<BeforeExecuteListener>, info: ToolCallInfo, error: unknown): Stop {
  if (info.signal.aborted) return abortedStop(info);
  return stop(toolError(`onBeforeExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${describeError(error)}`), 'vetoed');
}

/** The first listener that fails ends the call; the later ones are not run. */
async function runWillHooks(
  info: ToolCallInfo,
  hooks: readonly OrderedHook<WillExecuteListener>[],
  watch: AbortWatch,
  changeListeners: AccessesChangedListener[],
): Promise<Stop | undefined> {
  for (const hook of hooks) {
    const waits: Promise<unknown>[] = [];
    const ctx: WillExecuteContext = hookContext(info, {
      waitUntil: (work: Promise<unknown>) => void waits.push(tracked(work)),
      onAccessesChanged: (listener: AccessesChangedListener) => void changeListeners.push(listener),
    });
    try {
      const returned = hook.listener(ctx);
      if (returned && (await watch.untilGraceOver(returned)) === GAVE_UP) return abortedStop(info);
      if (waits.length > 0 && (await watch.untilGraceOver(Promise.all(waits))) === GAVE_UP) return abortedStop(info);
    } catch (error) {
      if (info.signal.aborted) return abortedStop(info);
      return stop(toolError(`onWillExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${describeError(error)}`), 'vetoed');
    }
  }
  return undefined;
}
