import type { Event } from '../../base/event';
import type { IDisposable } from '../../base/lifecycle';
import { createServiceId } from '../../di/serviceId';
import type { AgentTool } from '../../di/toolContribution';
import type { ToolAccesses } from '../../tool/accesses';
import type { RunnableToolExecution, ToolApprovalDefault, ToolOutput, ToolResult, ToolResultMetadata, ToolSource, ToolUpdate } from '../../tool/contract';
import type { ToolInputDisplay } from '../../tool/display';

/** A call as a model sends it: `arguments` is JSON text (an object is accepted too). */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments?: string | Readonly<Record<string, unknown>> | null;
}

/**
 * How a call ended:
 * - `executed`: the tool ran (its result may still be an error);
 * - `rejected`: preflight refused it (unknown tool, bad JSON, policy, invalid arguments);
 * - `resolution-failed`: resolveExecution threw (or refused the path), in preflight or when the
 *   call was resolved again right before it ran;
 * - `denied`: approval denied or rejected it;
 * - `needs_approval`: it needs approval and the host takes it only with a repeated call (a host
 *   that throws ApprovalPendingError, e.g. stateless `mcp serve --http`, whose caller repeats the
 *   call with a signed approval token);
 * - `vetoed`: a before-execute hook vetoed it or failed, or the tool was disabled while the call waited;
 * - `skipped`: an earlier call stopped the batch;
 * - `aborted`: the batch was aborted before or while it ran;
 * - `synthetic`: resolveExecution returned a result without running anything.
 */
export type ToolCallOutcome = 'executed' | 'rejected' | 'resolution-failed' | 'denied' | 'needs_approval' | 'vetoed' | 'skipped' | 'aborted' | 'synthetic';

export interface ToolCallResult {
  readonly toolCallId: string;
  readonly name: string;
  readonly output: ToolOutput;
  readonly isError: boolean;
  readonly outcome: ToolCallOutcome;
  readonly truncated: boolean;
  /** Where the full output was written when it was over the output budget. */
  readonly outputPath?: string;
  /** End the agent's turn after this batch. */
  readonly stopTurn?: boolean;
  /** Machine-readable content the tool returned next to its output (e.g. MCP structured content). */
  readonly structuredContent?: unknown;
  /** The tool's result metadata, e.g. `untrusted: true` on third-party content. */
  readonly metadata?: ToolResultMetadata;
  /** From the start of the tool's execution (or of settling a call that did not run) to its result. */
  readonly durationMs: number;
}

export interface ExecuteOptions {
  readonly signal?: AbortSignal;
}

/** Receives the results of `executeEach`, in call order, with each result's index in the batch. */
export type ToolCallResultSink = (result: ToolCallResult, index: number) => void;

export interface ToolCallStartedEvent {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: unknown;
  readonly description?: string;
  readonly display?: ToolInputDisplay;
}

export interface ToolProgressEvent {
  readonly toolCallId: string;
  readonly name: string;
  readonly update: ToolUpdate;
}

export interface ToolCallFinishedEvent {
  readonly toolCallId: string;
  readonly name: string;
  readonly output: ToolOutput;
  readonly isError: boolean;
  readonly outcome: ToolCallOutcome;
  readonly truncated: boolean;
  readonly outputPath?: string;
  readonly durationMs: number;
}

/**
 * A listener of one of the executor's events, or an `onDidExecuteTool` hook, threw. The executor
 * went on as if it had returned (a did-hook's call keeps the result it had before that hook).
 */
export interface ListenerErrorEvent {
  /** The event whose listener threw, or `onDidExecuteTool` for a did-hook. */
  readonly event: 'onToolCallStarted' | 'onToolProgress' | 'onToolCallFinished' | 'onDidExecuteTool';
  /** The listener function's name (a hook's `name` option), or "anonymous". */
  readonly listener: string;
  /** The call the failing did-hook ran for (`onDidExecuteTool` only). */
  readonly toolCallId?: string;
  readonly error: unknown;
  /** The error as text, safe to print (`<unprintable error>` when it cannot be read). */
  readonly message: string;
}

/** What hooks see of a call. */
export interface ToolCallInfo {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: unknown;
  readonly tool: AgentTool;
  readonly source: ToolSource;
  readonly execution: RunnableToolExecution;
  /** The tool's registered approval default (its contribution's `approval`); `execution.approval` wins over it. */
  readonly defaultApproval?: ToolApprovalDefault;
  /** The resolved accesses (`all` when the tool declared none). */
  readonly accesses: ToolAccesses;
  /** The whole batch, in call order. */
  readonly batch: readonly ToolCall[];
  readonly signal: AbortSignal;
}

/** What an `onBeforeExecuteTool` listener may say. */
export interface BeforeExecuteContext extends ToolCallInfo {
  /** Do not run the call; this result goes to the model instead. */
  veto(result: ToolResult, outcome?: 'vetoed' | 'denied' | 'aborted' | 'needs_approval'): void;
  /** Run the call; later listeners are not consulted. */
  allow(): void;
  /**
   * From a listener that runs before approval: the call is approved (approval does not decide or
   * ask again), but later listeners still run and may veto it. How a listener that asked the
   * person itself (plan mode's read-only MCP calls, a PreToolUse hook's "ask") settles approval
   * without skipping the PreToolUse hooks after it. After approval it does nothing.
   */
  approve(): void;
  /** Pass metadata to `execute` (merged over earlier listeners'). */
  pass(metadata: Readonly<Record<string, unknown>>): void;
  /** Wait for async work before deciding (listeners may also return a promise). */
  waitUntil(work: Promise<unknown>): void;
}

export interface WillExecuteContext extends ToolCallInfo {
  waitUntil(work: Promise<unknown>): void;
  /**
   * `listener` runs when the call, resolved again right before it runs, touches other resources
   * than `accesses` (a symbolic link changed in between): the call waits for the work it returns
   * (e.g. a lock on the new accesses) before it runs. A listener that throws ends the call (vetoed).
   */
  onAccessesChanged(listener: AccessesChangedListener): void;
}

/** Told the accesses a call will run with after they changed; see WillExecuteContext.onAccessesChanged. */
export type AccessesChangedListener = (accesses: ToolAccesses) => void | Promise<unknown>;

export interface DidExecuteContext extends ToolCallInfo {
  readonly outcome: ToolCallOutcome;
  /** The result so far; assign to replace it. */
  result: ToolResult;
  /** End the turn after this batch; calls that have not started are skipped. */
  stopTurn(): void;
}

export type BeforeExecuteListener = (ctx: BeforeExecuteContext) => void | Promise<void>;
export type WillExecuteListener = (ctx: WillExecuteContext) => void | Promise<void>;
export type DidExecuteListener = (ctx: DidExecuteContext) => void | Promise<void>;

export interface HookOptions {
  /** Named in the error when the hook throws; defaults to the function's name. */
  readonly name?: string;
}

/** Where a before-execute listener runs relative to approval (order 0). */
export interface BeforeHookOptions extends HookOptions {
  /** Lower runs first; approval is 0; the default is 100 (after approval). Equal orders run in registration order. */
  readonly order?: number;
}

/** Decides whether a call may proceed before validation; returns a message to refuse it. */
export type ToolCallGuard = (call: { readonly name: string; readonly source: ToolSource; readonly tool: AgentTool }) => string | undefined;

/** Explains a name that is not registered (e.g. a deferred tool that is not loaded). */
export type MissingToolDescriber = (name: string) => string | undefined;

/**
 * Runs a model's batch of tool calls (Agent scope): preflight, prepare, schedule, finalize
 * (DESIGN §1). One result per call, in call order; nothing a tool or hook throws escapes.
 */
export interface IAgentToolExecutorService {
  execute(calls: readonly ToolCall[], options?: ExecuteOptions): Promise<ToolCallResult[]>;
  /**
   * `execute` for a host that writes results out as they come (the CLI's `run`): each result goes
   * to `onResult` in call order as soon as it and every earlier one are in, and the executor keeps
   * none of them, so a batch of thousands of calls never holds all its results at once. If
   * `onResult` throws, no later result is delivered, calls not yet started do not run, and the
   * promise rejects with that error once the started calls have ended.
   */
  executeEach(calls: readonly ToolCall[], onResult: ToolCallResultSink, options?: ExecuteOptions): Promise<void>;

  /** Listeners run by `order` (approval is order 0), then in registration order. */
  onBeforeExecuteTool(listener: BeforeExecuteListener, options?: BeforeHookOptions): IDisposable;
  /** Listeners run in registration order. */
  onWillExecuteTool(listener: WillExecuteListener, options?: HookOptions): IDisposable;
  /**
   * Listeners run in registration order. One that throws (or rejects) is reported on
   * `onListenerError` and the call keeps its result: the tool has already run, so its outcome
   * must reach the model as it was.
   */
  onDidExecuteTool(listener: DidExecuteListener, options?: HookOptions): IDisposable;
  addToolCallGuard(guard: ToolCallGuard): IDisposable;
  addMissingToolDescriber(describer: MissingToolDescriber): IDisposable;

  readonly onToolCallStarted: Event<ToolCallStartedEvent>;
  readonly onToolProgress: Event<ToolProgressEvent>;
  readonly onToolCallFinished: Event<ToolCallFinishedEvent>;
  /**
   * A listener of the events above, or an `onDidExecuteTool` hook, threw: the error is contained
   * (it never reaches the caller or becomes an uncaught exception) and reported here. A listener of
   * this event that throws is ignored.
   */
  readonly onListenerError: Event<ListenerErrorEvent>;
}
export const IAgentToolExecutorService = createServiceId<IAgentToolExecutorService>('AgentToolExecutorService');
