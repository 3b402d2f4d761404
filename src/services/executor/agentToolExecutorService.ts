import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type IDisposable, toDisposable } from '../../base/lifecycle';
import { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import { IAgentToolApprovalService } from '../approval/toolApproval';
import { IConfigService } from '../config/config';
import { IAgentToolPolicyService } from '../toolPolicy/toolPolicy';
import { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { IAgentToolResultTruncationService } from '../truncation/toolResultTruncation';
import { AbortWatch, NEVER_ABORTED } from './abortWatch';
import { abortedEnd, type CallEnd, failedEnd } from './callEnd';
import { schedule, type BatchRun, executeTool } from './execute';
import { finalize, type FinalizeDeps } from './finalize';
import { OrderedHooks } from './orderedHooks';
import { preflight, type PreflightDeps, type Preflighted } from './preflight';
import { DEFAULT_BEFORE_ORDER, prepare, type PrepareDeps, type Prepared } from './prepare';
import type {
  BeforeExecuteListener,
  DidExecuteListener,
  ExecuteOptions,
  HookOptions,
  IAgentToolExecutorService,
  MissingToolDescriber,
  ToolCall,
  ToolCallFinishedEvent,
  ToolCallGuard,
  ToolCallResult,
  ToolCallStartedEvent,
  ToolProgressEvent,
  WillExecuteListener,
} from './toolExecutor';
import { ToolScheduler } from './toolScheduler';

/** Where a before-execute listener runs relative to approval (order 0). */
export interface BeforeHookOptions extends HookOptions {
  /** Lower runs first; approval is 0; the default is 100 (after approval). */
  readonly order?: number;
}

/**
 * Runs a batch as the stages of docs/architecture.md: preflight (all calls, in order), then per
 * call, concurrently: prepare → ToolCallStarted → schedule → execute → finalize. Each stage
 * lives in its own file; this class holds the listeners and events and joins the stages.
 */
@injectable()
export class AgentToolExecutorService implements IAgentToolExecutorService {
  private readonly beforeHooks = new OrderedHooks<BeforeExecuteListener>(DEFAULT_BEFORE_ORDER);
  private readonly willHooks = new OrderedHooks<WillExecuteListener>();
  private readonly didHooks = new OrderedHooks<DidExecuteListener>();
  // Replaced, never mutated: preflight reads the current list for each call.
  private guards: readonly ToolCallGuard[] = [];
  private missingDescribers: readonly MissingToolDescriber[] = [];
  private readonly started = new Emitter<ToolCallStartedEvent>();
  private readonly progress = new Emitter<ToolProgressEvent>();
  private readonly finished = new Emitter<ToolCallFinishedEvent>();
  readonly onToolCallStarted = this.started.event;
  readonly onToolProgress = this.progress.event;
  readonly onToolCallFinished = this.finished.event;

  private readonly preflightDeps: PreflightDeps;
  private readonly prepareDeps: PrepareDeps;
  private readonly finalizeDeps: FinalizeDeps;
  private readonly emitProgress = (event: ToolProgressEvent) => this.progress.fire(event);

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
    this.finalizeDeps = { didHooks: this.didHooks, truncation, finished: this.finished };
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
    if (calls.length === 0) return [];
    const signal = options.signal ?? NEVER_ABORTED;
    const watch = new AbortWatch(signal, this.config.config.executor.abortGraceMs);
    try {
      const run: BatchRun = { scheduler: new ToolScheduler(), watch, stopped: false };
      const entries = await preflight(calls, signal, run.scheduler, this.preflightDeps);
      return await Promise.all(entries.map((entry, i) => this.runCall(calls[i]!, entry, run)));
    } finally {
      watch.dispose();
    }
  }

  /** One call after preflight. Every path passes the one ToolCallStarted below and ends in finalize. */
  private async runCall(call: ToolCall, entry: Preflighted, run: BatchRun): Promise<ToolCallResult> {
    const since = performance.now();
    // prepare. A refused call has nothing to prepare; one aborted by now is not prepared. Neither yields.
    const prepared: Prepared =
      entry.kind === 'refused'
        ? { proceed: false, ...entry }
        : entry.info.signal.aborted
          ? { proceed: false, ...abortedEnd(entry.info.name) }
          : await prepare(entry.info, this.prepareDeps);

    // The one place ToolCallStarted is emitted: after prepare, before the call is scheduled.
    const execution = entry.kind === 'runnable' ? entry.info.execution : undefined;
    this.started.fire({
      toolCallId: call.id,
      name: call.name,
      args: entry.kind === 'runnable' ? entry.info.args : entry.args,
      ...(execution?.description ? { description: execution.description } : {}),
      ...(execution?.display ? { display: execution.display } : {}),
    });

    // A refused call has no ToolCallInfo (so no did-hooks); its time counts from here.
    if (entry.kind === 'refused') return finalize(call, undefined, entry, performance.now(), this.finalizeDeps);

    // schedule → execute
    const { info, task } = entry;
    let end: CallEnd;
    let startedAt = since;
    let ran = false;
    try {
      if (!prepared.proceed) end = prepared;
      else {
        const blocked = await schedule(info, task, run);
        if (blocked) end = blocked;
        else {
          ran = true;
          startedAt = performance.now();
          end = await executeTool(info, prepared.metadata, run.watch, this.emitProgress);
        }
      }
    } catch (error) {
      // Unreachable by design (the stages catch what tools and hooks throw); kept so nothing escapes `execute`.
      end = failedEnd(info.name, error);
    } finally {
      // Before finalize, so later conflicting calls need not wait for did-hooks and the output budget.
      run.scheduler.finish(task);
    }

    const result = await finalize(call, info, end, startedAt, this.finalizeDeps);
    // Only a call that ran stops the batch: stopTurn on a call that did not run skips no sibling.
    if (ran && result.stopTurn) run.stopped = true;
    return result;
  }

  @preDestroy()
  dispose(): void {
    this.started.dispose();
    this.progress.dispose();
    this.finished.dispose();
  }
}
