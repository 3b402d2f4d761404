import { inject, injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { Emitter } from '../../base/event';
import { type IDisposable, toDisposable } from '../../base/lifecycle';
import { closestMatch } from '../../base/strings';
import { ToolAccesses } from '../../tool/accesses';
import { type RunnableToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { PathSecurityError } from '../../tool/pathAccess';
import { IAgentToolPolicyService } from '../toolPolicy/toolPolicy';
import { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import { IAgentToolApprovalService } from '../approval/toolApproval';
import { IConfigService } from '../config/config';
import { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { IAgentToolResultTruncationService } from '../truncation/toolResultTruncation';
import { normalizeToolResult } from './normalizeResult';
import { parseArguments } from './parseArguments';
import {
  type BeforeExecuteContext,
  type BeforeExecuteListener,
  type DidExecuteContext,
  type DidExecuteListener,
  type ExecuteOptions,
  type HookOptions,
  type IAgentToolExecutorService,
  type MissingToolDescriber,
  type ToolCall,
  type ToolCallFinishedEvent,
  type ToolCallGuard,
  type ToolCallInfo,
  type ToolCallOutcome,
  type ToolCallResult,
  type ToolCallStartedEvent,
  type ToolProgressEvent,
  type WillExecuteContext,
  type WillExecuteListener,
} from './toolExecutor';
import { type ScheduledTask, ToolScheduler } from './toolScheduler';

/** Where a before-execute listener runs relative to approval (order 0). */
export interface BeforeHookOptions extends HookOptions {
  /** Lower runs first; approval is 0; the default is 100 (after approval). */
  readonly order?: number;
}

interface Hook<L> {
  readonly listener: L;
  readonly name: string;
  readonly order: number;
}

/** A call that ended before running. */
interface Settled {
  readonly kind: 'settled';
  readonly result: ToolResult;
  readonly outcome: ToolCallOutcome;
  readonly info?: ToolCallInfo;
  readonly args: unknown;
}

interface Runnable {
  readonly kind: 'runnable';
  readonly info: ToolCallInfo;
  readonly task: ScheduledTask;
}

type Prepared = Settled | Runnable;

const NEVER_ABORTED = new AbortController().signal;

function settled(result: ToolResult, outcome: ToolCallOutcome, args: unknown, info?: ToolCallInfo): Settled {
  return { kind: 'settled', result, outcome, args, info };
}

/** One listener for the batch: resolves when it aborts, and again when the grace period after it ends. */
class AbortWatch implements IDisposable {
  readonly aborted: Promise<void>;
  readonly graceOver: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort: () => void;

  constructor(
    private readonly signal: AbortSignal,
    graceMs: number,
  ) {
    let markAborted!: () => void;
    let markGraceOver!: () => void;
    this.aborted = new Promise((resolve) => (markAborted = resolve));
    this.graceOver = new Promise((resolve) => (markGraceOver = resolve));
    this.onAbort = () => {
      markAborted();
      this.timer = setTimeout(markGraceOver, graceMs);
    };
    if (signal.aborted) this.onAbort();
    // The shared never-aborting signal gets no listener: concurrent batches would pile them up on it.
    else if (signal !== NEVER_ABORTED) signal.addEventListener('abort', this.onAbort, { once: true });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.timer) clearTimeout(this.timer);
  }
}

const GRACE_EXPIRED = Symbol('grace expired');

@injectable()
export class AgentToolExecutorService implements IAgentToolExecutorService {
  private beforeHooks: Hook<BeforeExecuteListener>[] = [];
  private willHooks: Hook<WillExecuteListener>[] = [];
  private didHooks: Hook<DidExecuteListener>[] = [];
  private guards: ToolCallGuard[] = [];
  private missingDescribers: MissingToolDescriber[] = [];
  private readonly started = new Emitter<ToolCallStartedEvent>();
  private readonly progress = new Emitter<ToolProgressEvent>();
  private readonly finished = new Emitter<ToolCallFinishedEvent>();
  readonly onToolCallStarted = this.started.event;
  readonly onToolProgress = this.progress.event;
  readonly onToolCallFinished = this.finished.event;

  constructor(
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentToolPolicyService) private readonly policy: IAgentToolPolicyService,
    @inject(IToolArgsValidatorService) private readonly validator: IToolArgsValidatorService,
    @inject(IAgentToolApprovalService) private readonly approval: IAgentToolApprovalService,
    @inject(IAgentToolResultTruncationService) private readonly truncation: IAgentToolResultTruncationService,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {
    this.addToolCallGuard(({ name, source }) =>
      this.policy.isToolActive(name, source) ? undefined : `Tool "${name}" is disabled by the active tool policy`,
    );
  }

  onBeforeExecuteTool(listener: BeforeExecuteListener, options: BeforeHookOptions = {}): IDisposable {
    const hook = { listener, name: options.name ?? (listener.name || 'anonymous'), order: options.order ?? 100 };
    // Stable: equal orders keep registration order.
    this.beforeHooks = [...this.beforeHooks, hook].sort((a, b) => a.order - b.order);
    return toDisposable(() => (this.beforeHooks = this.beforeHooks.filter((h) => h !== hook)));
  }

  onWillExecuteTool(listener: WillExecuteListener, options: HookOptions = {}): IDisposable {
    const hook = { listener, name: options.name ?? (listener.name || 'anonymous'), order: 0 };
    this.willHooks = [...this.willHooks, hook];
    return toDisposable(() => (this.willHooks = this.willHooks.filter((h) => h !== hook)));
  }

  onDidExecuteTool(listener: DidExecuteListener, options: HookOptions = {}): IDisposable {
    const hook = { listener, name: options.name ?? (listener.name || 'anonymous'), order: 0 };
    this.didHooks = [...this.didHooks, hook];
    return toDisposable(() => (this.didHooks = this.didHooks.filter((h) => h !== hook)));
  }

  addToolCallGuard(guard: ToolCallGuard): IDisposable {
    this.guards = [...this.guards, guard];
    return toDisposable(() => (this.guards = this.guards.filter((g) => g !== guard)));
  }

  addMissingToolDescriber(describer: MissingToolDescriber): IDisposable {
    this.missingDescribers = [...this.missingDescribers, describer];
    return toDisposable(() => (this.missingDescribers = this.missingDescribers.filter((d) => d !== describer)));
  }

  async execute(calls: readonly ToolCall[], options: ExecuteOptions = {}): Promise<ToolCallResult[]> {
    if (calls.length === 0) return [];
    const signal = options.signal ?? NEVER_ABORTED;
    const watch = new AbortWatch(signal, this.config.config.executor.abortGraceMs);
    try {
      return await this.runBatch(calls, signal, watch);
    } finally {
      watch.dispose();
    }
  }

  private async runBatch(calls: readonly ToolCall[], signal: AbortSignal, watch: AbortWatch): Promise<ToolCallResult[]> {
    const scheduler = new ToolScheduler();
    const results = new Array<ToolCallResult>(calls.length);
    const batch = { stopped: false };

    // Preflight and resolution, in call order; each runnable call takes its place in the scheduler.
    const prepared: Prepared[] = [];
    let stopAfter = -1;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      if (stopAfter >= 0) {
        prepared.push(settled(toolError('Tool skipped because a previous tool call stopped the turn.'), 'skipped', parseArguments(call.arguments)));
        continue;
      }
      const entry = await this.prepare(call, calls, signal, scheduler);
      if (entry.kind === 'runnable' && entry.info.execution.stopBatchAfterThis) stopAfter = i;
      prepared.push(entry);
    }

    await Promise.all(
      prepared.map(async (entry, i) => {
        const call = calls[i]!;
        try {
          results[i] = entry.kind === 'settled' ? await this.settle(call, entry) : await this.run(call, entry, scheduler, watch, batch);
        } catch (error) {
          // Unreachable by design; kept so nothing escapes `execute`.
          if (entry.kind === 'runnable') scheduler.finish(entry.task);
          results[i] = await this.settle(call, settled(toolError(`Tool "${call.name}" failed: ${errorMessage(error)}`), 'executed', undefined));
        }
      }),
    );
    return results;
  }

  /** Preflight (parse, find, guards, validate) and resolution of one call. */
  private async prepare(call: ToolCall, batch: readonly ToolCall[], signal: AbortSignal, scheduler: ToolScheduler): Promise<Prepared> {
    const name = call.name;
    const registration = this.registry.get(name);
    const parsed = parseArguments(call.arguments);
    const rawArgs = parsed.ok ? parsed.value : call.arguments;
    if (!registration) return settled(toolError(this.describeMissing(name)), 'rejected', rawArgs);
    if (!parsed.ok) return settled(toolError(`Invalid JSON in arguments for tool "${name}": ${parsed.message}`), 'rejected', rawArgs);
    const { tool, source } = registration;
    for (const guard of this.guards) {
      let refusal: string | undefined;
      try {
        refusal = guard({ name, source, tool });
      } catch (error) {
        refusal = `Tool "${name}" was refused by a tool call guard that failed: ${errorMessage(error)}`;
      }
      if (refusal !== undefined) return settled(toolError(refusal), 'rejected', rawArgs);
    }
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
      return settled(toolError(`Invalid args for tool "${name}": the arguments must be a JSON object`), 'rejected', rawArgs);
    }
    const validation = this.validator.validate(tool.parameters, parsed.value);
    if (!validation.ok) return settled(toolError(`Invalid args for tool "${name}": ${validation.message}`), 'rejected', rawArgs);
    const args = validation.value;

    let execution;
    try {
      execution = await tool.resolveExecution(args as never);
    } catch (error) {
      const message = error instanceof PathSecurityError ? error.message : `Tool "${name}" failed to resolve execution: ${errorMessage(error)}`;
      return settled(toolError(message), 'resolution-failed', args);
    }
    if (typeof execution !== 'object' || execution === null) {
      return settled(toolError(`Tool "${name}" failed to resolve execution: it returned ${String(execution)}`), 'resolution-failed', args);
    }
    if (execution.isError === true) return settled(normalizeToolResult(name, execution), 'synthetic', args);
    if (typeof (execution as RunnableToolExecution).execute !== 'function') {
      return settled(toolError(`Tool "${name}" failed to resolve execution: it returned no execute function`), 'resolution-failed', args);
    }
    const runnable = execution as RunnableToolExecution;
    const accesses = runnable.accesses ?? ToolAccesses.all();
    const info: ToolCallInfo = { toolCallId: call.id, name, args, tool, source, execution: runnable, accesses, batch, signal };
    return { kind: 'runnable', info, task: scheduler.add(accesses) };
  }

  private describeMissing(name: string): string {
    for (const describe of this.missingDescribers) {
      try {
        const text = describe(name);
        if (text !== undefined) return text;
      } catch {
        // A failing describer falls through to the default text.
      }
    }
    const suggestion = closestMatch(
      name,
      this.registry.list().map((r) => r.tool.name),
    );
    return suggestion ? `Tool "${name}" not found. Did you mean "${suggestion}"?` : `Tool "${name}" not found`;
  }

  private async settle(call: ToolCall, entry: Settled): Promise<ToolCallResult> {
    this.fireStarted(call.id, call.name, entry.args, entry.info?.execution);
    return this.finalize(call, entry.info, entry.result, entry.outcome, performance.now());
  }

  private async run(
    call: ToolCall,
    entry: Runnable,
    scheduler: ToolScheduler,
    watch: AbortWatch,
    batch: { stopped: boolean },
  ): Promise<ToolCallResult> {
    const { info, task } = entry;
    let startedAt = performance.now();
    const stop = async (result: ToolResult, outcome: ToolCallOutcome) => {
      scheduler.finish(task);
      return this.finalize(call, info, result, outcome, startedAt);
    };
    const aborted = () => toolError(`Tool "${info.name}" was aborted`);

    if (info.signal.aborted) {
      this.fireStarted(call.id, info.name, info.args, info.execution);
      return stop(aborted(), 'aborted');
    }
    const before = await this.runBeforeHooks(info);
    if (!before.proceed) {
      this.fireStarted(call.id, info.name, info.args, info.execution);
      return stop(before.result, before.outcome);
    }
    const willFailure = this.willHooks.length > 0 ? await this.runWillHooks(info) : undefined;
    this.fireStarted(call.id, info.name, info.args, info.execution);
    if (willFailure) return stop(willFailure, 'vetoed');

    if (!info.signal.aborted) await Promise.race([scheduler.whenStartable(task), watch.aborted]);
    if (info.signal.aborted) return stop(aborted(), 'aborted');
    if (batch.stopped) return stop(toolError('Tool skipped because a previous tool call stopped the turn.'), 'skipped');

    let result: ToolResult;
    let outcome: ToolCallOutcome = 'executed';
    startedAt = performance.now();
    try {
      const running = Promise.resolve().then(() =>
        info.execution.execute({
          toolCallId: info.toolCallId,
          signal: info.signal,
          metadata: before.metadata,
          onUpdate: (update) => {
            if (!info.signal.aborted) this.progress.fire({ toolCallId: info.toolCallId, name: info.name, update });
          },
        }),
      );
      const value = await Promise.race([running, watch.graceOver.then(() => GRACE_EXPIRED)]);
      if (value === GRACE_EXPIRED) {
        // The tool ignored the abort; it is given up on (and its late result discarded).
        running.catch(() => undefined);
        result = aborted();
        outcome = 'aborted';
      } else {
        result = normalizeToolResult(info.name, value);
        if (info.signal.aborted) outcome = 'aborted';
      }
    } catch (error) {
      if (info.signal.aborted || (error as Error)?.name === 'AbortError') {
        result = aborted();
        outcome = 'aborted';
      } else {
        result = toolError(`Tool "${info.name}" failed: ${errorMessage(error)}`);
      }
    }
    scheduler.finish(task);
    const final = await this.finalize(call, info, result, outcome, startedAt);
    if (final.stopTurn) batch.stopped = true;
    return final;
  }

  /**
   * Listeners with a negative order, then approval (order 0), then the rest. `allow()` from a
   * listener that runs before approval approves the call; after it, it ends the round.
   */
  private async runBeforeHooks(
    info: ToolCallInfo,
  ): Promise<{ proceed: true; metadata: Readonly<Record<string, unknown>> } | { proceed: false; result: ToolResult; outcome: ToolCallOutcome }> {
    let metadata: Readonly<Record<string, unknown>> = {};
    let veto: { result: ToolResult; outcome: ToolCallOutcome } | undefined;
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
    const hooks = this.beforeHooks;
    let at = 0;
    for (; at < hooks.length && hooks[at]!.order < 0; at++) {
      const failure = await this.runBeforeHook(hooks[at]!, info, context(), () => waits, () => (waits = undefined));
      if (failure) return failure;
      if (veto) return { proceed: false, result: normalizeToolResult(info.name, veto.result), outcome: veto.outcome };
      if (allowed) return { proceed: true, metadata };
    }
    try {
      const review = await this.approval.review(info);
      if (!review.approved) return { proceed: false, result: normalizeToolResult(info.name, review.result), outcome: review.aborted ? 'aborted' : 'denied' };
    } catch (error) {
      if (info.signal.aborted) return { proceed: false, result: toolError(`Tool "${info.name}" was aborted`), outcome: 'aborted' };
      return { proceed: false, result: toolError(`Approval failed for tool "${info.name}": ${errorMessage(error)}`), outcome: 'denied' };
    }
    for (; at < hooks.length; at++) {
      const failure = await this.runBeforeHook(hooks[at]!, info, context(), () => waits, () => (waits = undefined));
      if (failure) return failure;
      if (veto) return { proceed: false, result: normalizeToolResult(info.name, veto.result), outcome: veto.outcome };
      if (allowed) break;
    }
    return { proceed: true, metadata };
  }

  private async runBeforeHook(
    hook: Hook<BeforeExecuteListener>,
    info: ToolCallInfo,
    ctx: BeforeExecuteContext,
    pendingWaits: () => Promise<unknown>[] | undefined,
    clearWaits: () => void,
  ): Promise<{ proceed: false; result: ToolResult; outcome: ToolCallOutcome } | undefined> {
    clearWaits();
    try {
      const returned = hook.listener(ctx);
      if (returned) await returned;
      const waits = pendingWaits();
      if (waits) await Promise.all(waits);
      return undefined;
    } catch (error) {
      if (info.signal.aborted) return { proceed: false, result: toolError(`Tool "${info.name}" was aborted`), outcome: 'aborted' };
      return {
        proceed: false,
        result: toolError(`onBeforeExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${errorMessage(error)}`),
        outcome: 'vetoed',
      };
    }
  }

  private async runWillHooks(info: ToolCallInfo): Promise<ToolResult | undefined> {
    for (const hook of this.willHooks) {
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

  private async finalize(
    call: ToolCall,
    info: ToolCallInfo | undefined,
    raw: ToolResult,
    outcome: ToolCallOutcome,
    startedAt: number,
  ): Promise<ToolCallResult> {
    let result = raw;
    let stopTurn = raw.stopTurn === true;
    if (info && this.didHooks.length > 0) {
      for (const hook of this.didHooks) {
        const ctx: DidExecuteContext = {
          ...info,
          outcome,
          result,
          stopTurn: () => {
            stopTurn = true;
          },
        };
        try {
          const returned = hook.listener(ctx);
          if (returned) await returned;
          result = normalizeToolResult(info.name, ctx.result);
        } catch (error) {
          result = toolError(`onDidExecuteTool hook "${hook.name}" failed for tool "${info.name}": ${errorMessage(error)}`);
          break;
        }
      }
      if (result.stopTurn) stopTurn = true;
    }
    let outputPath: string | undefined;
    try {
      const truncated = await this.truncation.truncateForModel(result, { toolName: call.name, toolCallId: call.id });
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
      outcome,
      truncated: result.truncated === true,
      ...(outputPath !== undefined ? { outputPath } : {}),
      ...(stopTurn ? { stopTurn: true } : {}),
      ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
      durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
    };
    this.finished.fire({
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

  private fireStarted(toolCallId: string, name: string, args: unknown, execution: RunnableToolExecution | undefined): void {
    this.started.fire({
      toolCallId,
      name,
      args,
      ...(execution?.description ? { description: execution.description } : {}),
      ...(execution?.display ? { display: execution.display } : {}),
    });
  }

  @preDestroy()
  dispose(): void {
    this.started.dispose();
    this.progress.dispose();
    this.finished.dispose();
  }
}

