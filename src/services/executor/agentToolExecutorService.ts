import { context } from '@opentelemetry/api';
import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { DisposableStore, type IDisposable, toDisposable } from '../../base/lifecycle';
import { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import { IAgentToolApprovalService } from '../approval/toolApproval';
import { IConfigService } from '../config/config';
import { IAgentToolPolicyService } from '../toolPolicy/toolPolicy';
import { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { IAgentToolResultTruncationService } from '../truncation/toolResultTruncation';
import { AbortWatch, NEVER_ABORTED } from './abortWatch';
import { abortedEnd, type CallEnd, describeError, failedEnd } from './callEnd';
import { schedule, type BatchRun, executeTool } from './execute';
import { finalize, type FinalizeDeps } from './finalize';
import { OrderedHooks } from './orderedHooks';
import { CallWindow } from './callWindow';
import { preflight, type PreflightCursor, type PreflightDeps, type Preflighted, type Runnable } from './preflight';
import { DEFAULT_BEFORE_ORDER, prepare, type PrepareDeps, type Prepared } from './prepare';
import { type RecheckDeps, recheckBeforeRun } from './recheck';
import type {
  BeforeExecuteListener,
  BeforeHookOptions,
  DidExecuteListener,
  ExecuteOptions,
  HookOptions,
  IAgentToolExecutorService,
  ListenerErrorEvent,
  MissingToolDescriber,
  ToolCall,
  ToolCallFinishedEvent,
  ToolCallGuard,
  ToolCallResult,
  ToolCallResultSink,
  ToolCallStartedEvent,
  ToolProgressEvent,
  WillExecuteListener,
} from './toolExecutor';
import { ToolScheduler } from './toolScheduler';
import { activeTracer, ToolCallSpan } from './tracing';
import { ValidatorPrecompiler } from './validatorPrecompiler';

/** Calls preflighted ahead of the running ones, per run slot (executor.maxConcurrentCalls), and at least. */
const PREFLIGHT_WINDOW_PER_SLOT = 2;
const MIN_PREFLIGHT_WINDOW = 128;

/**
 * Runs a batch as the stages of docs/architecture.md: preflight (all calls, in order; the calls
 * after one that says resolveLaterCallsAfterThis once it has finished), then per
 * call, concurrently: prepare → ToolCallStarted → schedule → recheck → execute → finalize →
 * ToolCallFinished. Each stage lives in its own file; this class holds the listeners and events
 * and joins the stages.
 */
@injectable()
export class AgentToolExecutorService implements IAgentToolExecutorService {
  private readonly beforeHooks = new OrderedHooks<BeforeExecuteListener>(DEFAULT_BEFORE_ORDER);
  private readonly willHooks = new OrderedHooks<WillExecuteListener>();
  private readonly didHooks = new OrderedHooks<DidExecuteListener>();
  // Replaced, never mutated: preflight reads the current list for each call.
  private guards: readonly ToolCallGuard[] = [];
  private missingDescribers: readonly MissingToolDescriber[] = [];
  // Nobody may crash the host from here: an onListenerError listener that throws is ignored.
  private readonly listenerErrors = new Emitter<ListenerErrorEvent>(() => undefined);
  private readonly started = new Emitter<ToolCallStartedEvent>(this.listenerErrorHandler('onToolCallStarted'));
  private readonly progress = new Emitter<ToolProgressEvent>(this.listenerErrorHandler('onToolProgress'));
  private readonly finished = new Emitter<ToolCallFinishedEvent>(this.listenerErrorHandler('onToolCallFinished'));
  readonly onToolCallStarted = this.started.event;
  readonly onToolProgress = this.progress.event;
  readonly onToolCallFinished = this.finished.event;
  readonly onListenerError = this.listenerErrors.event;

  /** Compiles validators ahead of calls, between batches. */
  private readonly precompiler: ValidatorPrecompiler;
  private readonly preflightDeps: PreflightDeps;
  private readonly prepareDeps: PrepareDeps;
  private readonly finalizeDeps: FinalizeDeps;
  private readonly recheckDeps: RecheckDeps;
  private readonly emitProgress = (event: ToolProgressEvent) => this.progress.fire(event);
  private readonly disposables = new DisposableStore();

  constructor(
    @inject(IAgentToolRegistryService) registry: IAgentToolRegistryService,
    @inject(IAgentToolPolicyService) policy: IAgentToolPolicyService,
    @inject(IToolArgsValidatorService) validator: IToolArgsValidatorService,
    @inject(IAgentToolApprovalService) approval: IAgentToolApprovalService,
    @inject(IAgentToolResultTruncationService) truncation: IAgentToolResultTruncationService,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {
    this.preflightDeps = { registry, validator, guards: () => this.guards, missingDescribers: () => this.missingDescribers };
    this.prepareDeps = { beforeHooks: this.beforeHooks, willHooks: this.willHooks, approval };
    this.finalizeDeps = {
      didHooks: this.didHooks,
      truncation,
      reportHookError: (hook, toolCallId, error) =>
        this.listenerErrors.fire({ event: 'onDidExecuteTool', listener: hook, toolCallId, error, message: describeError(error) }),
    };
    this.recheckDeps = { registry, approval };
    // A tool's validator is compiled when the tool becomes active, not by its first call.
    const precompiler = this.disposables.add(new ValidatorPrecompiler(registry, validator));
    this.precompiler = precompiler;
    precompiler.add(registry.list().map((r) => r.tool.name));
    this.disposables.add(registry.onDidChange((change) => precompiler.add(change.added)));
    this.addToolCallGuard(({ name, source }) =>
      policy.isToolActive(name, source) ? undefined : `Tool "${name}" is disabled by the active tool policy`,
    );
  }

  onBeforeExecuteTool(listener: BeforeExecuteListener, options: BeforeHookOptions = {}): IDisposable {
    return this.beforeHooks.add(listener, options);
  }

  // Will- and did-listeners run in registration order: their options carry a name only.
  onWillExecuteTool(listener: WillExecuteListener, options: HookOptions = {}): IDisposable {
    return this.willHooks.add(listener, { name: options.name });
  }

  onDidExecuteTool(listener: DidExecuteListener, options: HookOptions = {}): IDisposable {
    return this.didHooks.add(listener, { name: options.name });
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
    const results: ToolCallResult[] = [];
    await this.executeEach(calls, (result) => results.push(result), options);
    return results;
  }

  async executeEach(calls: readonly ToolCall[], onResult: ToolCallResultSink, options: ExecuteOptions = {}): Promise<void> {
    if (calls.length === 0) return;
    const signal = options.signal ?? NEVER_ABORTED;
    const watch = new AbortWatch(signal, this.config.config.executor.abortGraceMs);
    this.precompiler.pause();
    try {
      const maxRunning = this.config.config.executor.maxConcurrentCalls;
      const scheduler = new ToolScheduler({ maxRunning });
      // One check per batch: without a registered tracer provider no call makes a span.
      const tracer = activeTracer();
      const run: BatchRun = { scheduler, watch, stopped: false, ...(tracer ? { trace: { tracer, parent: context.active() } } : {}) };
      // At most this many calls are between preflight and their end: a batch of 10,000 calls does
      // not hold 10,000 resolutions and suspended calls at once. Later calls only ever wait for
      // earlier ones, so the earliest unfinished call can always go on and the window always moves.
      const window = new CallWindow(Math.max(MIN_PREFLIGHT_WINDOW, PREFLIGHT_WINDOW_PER_SLOT * maxRunning));
      const cursor: PreflightCursor = { stopped: false };
      // Results go to onResult in call order through this chain, each as soon as it and the ones
      // before it are in; nothing here keeps a result after that.
      let delivered: Promise<void> = Promise.resolve();
      let sinkFailure: { readonly error: unknown } | undefined;
      const deliver = (result: ToolCallResult, index: number) => {
        if (sinkFailure) return;
        try {
          onResult(result, index);
        } catch (error) {
          sinkFailure = { error };
        }
      };
      let last: Promise<ToolCallResult> | undefined;
      let waitForLast = false;
      let next = 0;
      // A sink that throws ends the batch: calls not yet preflighted do not run for nobody.
      while (next < calls.length && !sinkFailure) {
        // Preflight stopped after a call whose later calls must see what it did (select_tools
        // loads tools): they are preflighted once it has finished.
        if (waitForLast) await last;
        await window.untilRoom();
        const from = next;
        const chunk = await preflight(calls, from, window.room, cursor, signal, watch, run.scheduler, this.preflightDeps);
        waitForLast = chunk.waitForLast;
        // Each call holds its own entry until it ends: a finished call's arguments, execution and
        // accesses are not kept until the whole batch is done.
        chunk.entries.forEach((entry, i) => {
          const index = from + i;
          const result = window.track(this.runCall(calls[index]!, entry, run));
          last = result;
          delivered = delivered.then(() => result).then((r) => deliver(r, index));
        });
        next += chunk.entries.length;
        chunk.entries.length = 0;
      }
      await delivered;
      if (sinkFailure) throw sinkFailure.error;
    } finally {
      watch.dispose();
      this.precompiler.resume();
    }
  }

  /** One call after preflight. Every path passes the one ToolCallStarted below and ends in the one ToolCallFinished. */
  private async runCall(call: ToolCall, entry: Preflighted, run: BatchRun): Promise<ToolCallResult> {
    const since = performance.now();
    let started = false;
    const span = run.trace ? new ToolCallSpan(run.trace.tracer, call, run.trace.parent) : undefined;
    try {
      // prepare. A refused call has nothing to prepare; one aborted by now is not prepared. Neither yields.
      const prepared: Prepared =
        entry.kind === 'refused'
          ? { proceed: false, ...entry }
          : entry.info.signal.aborted
            ? { proceed: false, ...abortedEnd(entry.info.name) }
            : await prepare(entry.info, run.watch, this.prepareDeps, span);

      // The one place ToolCallStarted is emitted: after prepare, before the call is scheduled.
      const execution = entry.kind === 'runnable' ? entry.info.execution : undefined;
      started = true;
      this.started.fire({
        toolCallId: call.id,
        name: call.name,
        args: entry.kind === 'runnable' ? entry.info.args : entry.args,
        ...(execution?.description ? { description: execution.description } : {}),
        ...(execution?.display ? { display: execution.display } : {}),
      });

      // A refused call has no ToolCallInfo (so no did-hooks); its time counts from here.
      const result =
        entry.kind === 'refused'
          ? await finalize(call, undefined, entry, performance.now(), run.watch, this.finalizeDeps)
          : await this.scheduleAndRun(call, entry, prepared, run, since, span);
      span?.end(result);
      this.fireFinished(result);
      return result;
    } catch (error) {
      // Unreachable by design (every stage catches what tools and hooks throw); kept so that even
      // then the call gets its result and its one started/finished pair.
      if (!started) this.started.fire({ toolCallId: call.id, name: call.name, args: undefined });
      const end = failedEnd(call.name, error);
      const result: ToolCallResult = {
        toolCallId: call.id,
        name: call.name,
        output: end.result.output,
        isError: true,
        outcome: end.outcome,
        truncated: false,
        durationMs: Math.round((performance.now() - since) * 1000) / 1000,
      };
      span?.end(result);
      this.fireFinished(result);
      return result;
    }
  }

  /** schedule → recheck → execute → finalize, for a call that passed preflight. */
  private async scheduleAndRun(call: ToolCall, entry: Runnable, prepared: Prepared, run: BatchRun, since: number, span: ToolCallSpan | undefined): Promise<ToolCallResult> {
    const { task } = entry;
    let info = entry.info;
    let end: CallEnd;
    let startedAt = since;
    let ran = false;
    try {
      if (!prepared.proceed) end = prepared;
      else {
        const blocked = await schedule(info, task, run);
        if (blocked) end = blocked;
        else {
          const rechecked = await recheckBeforeRun(info, task, prepared, run, this.recheckDeps);
          info = rechecked.info;
          if (!rechecked.run) end = rechecked.end;
          else {
            ran = true;
            startedAt = performance.now();
            const running = info;
            end = span
              ? await span.execute((executeSpan) => executeTool(running, prepared.metadata, run.watch, this.emitProgress, executeSpan))
              : await executeTool(info, prepared.metadata, run.watch, this.emitProgress);
          }
        }
      }
    } catch (error) {
      // Unreachable by design (the stages catch what tools and hooks throw); kept so nothing escapes `execute`.
      end = failedEnd(info.name, error);
    } finally {
      // Before finalize, so later conflicting calls need not wait for did-hooks and the output budget.
      run.scheduler.finish(task);
    }

    const result = await finalize(call, info, end, startedAt, run.watch, this.finalizeDeps);
    // Only a call that ran stops the batch: stopTurn on a call that did not run skips no sibling.
    if (ran && result.stopTurn) run.stopped = true;
    return result;
  }

  private fireFinished(result: ToolCallResult): void {
    this.finished.fire({
      toolCallId: result.toolCallId,
      name: result.name,
      output: result.output,
      isError: result.isError,
      outcome: result.outcome,
      truncated: result.truncated,
      ...(result.outputPath !== undefined ? { outputPath: result.outputPath } : {}),
      durationMs: result.durationMs,
    });
  }

  /** A throwing listener of one of the events is contained like a hook error, and reported. */
  private listenerErrorHandler<T>(event: ListenerErrorEvent['event']): (error: unknown, listener: (value: T) => void) => void {
    return (error, listener) => {
      let name = 'anonymous';
      try {
        if (typeof listener.name === 'string' && listener.name !== '') name = listener.name;
      } catch {
        // A function whose name cannot be read stays anonymous.
      }
      this.listenerErrors.fire({ event, listener: name, error, message: describeError(error) });
    };
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    this.started.dispose();
    this.progress.dispose();
    this.finished.dispose();
    this.listenerErrors.dispose();
  }
}
