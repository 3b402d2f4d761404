import * as nodePath from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { abortWith, deadlineSignal } from '../../base/abort';
import { errorMessage } from '../../base/errors';
import { DisposableStore } from '../../base/lifecycle';
import { formatDuration, randomBase36 } from '../../base/strings';
import type { ServiceAccessor } from '../../di/toolContribution';
import { IAgentFactory, type ScopedAgent } from '../../services/agentFactory/agentFactory';
import type { JsonValue } from '../../services/agentState/agentState';
import { IAgentSessionGrants } from '../../services/approval/toolApproval';
import { IConfigService } from '../../services/config/config';
import { ISessionInteractionService } from '../../services/interaction/interaction';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { IAgentServiceAccessor, IAgentToolActivationService } from '../../services/toolActivation/toolActivation';
import { IAgentToolRegistryService } from '../../services/toolRegistry/toolRegistry';
import { type AgentOptions, IAgentOptions, IAgentWorkspaceService } from '../../services/workspace/workspace';
import { type ToolAccess, ToolAccesses } from '../../tool/accesses';
import { IAgentPlanModeService, PLAN_GUARD_ORDER } from '../../features/plan/contract';
import type { TaskInfo } from '../task/contract';
import { agentConfig } from './agentConfig';
import { createAgentHandle } from './agentHandle';
import { cappedText } from './agentResult';
import {
  type AgentHandle,
  type IAgentSubagentService,
  ISubagentJobQueue,
  type QueuedSubagentEnd,
  type SubagentJob,
  ISubagentRunnerService,
  type ResolvedSubagentProfile,
  type SubagentLaunch,
  type SubagentOutcome,
  type SubagentRunListener,
  type SubagentRunRequest,
  type SubagentRunResult,
} from './contract';
import { ISubagentLineage, type SubagentLineage } from './lineage';
import { SubagentInteractionService } from './subagentInteractions';
import { resolveSubagentProfile, subagentProfiles } from './subagentProfiles';
import { createWorktree, finishWorktree, gitWorkTreeRoot, type Worktree, type WorktreeRuntime, worktreeStillThere } from './worktree';

/** What a run made, for its cleanup. */
interface MadeForRun {
  worktree?: Worktree;
  child?: ScopedAgent;
  /** Lets the runner's handle drop the child (a runner may keep its request after the run). */
  releaseHandle?: () => void;
}

/** One child this agent started: what `resume` needs. */
interface ChildRecord {
  readonly agentId: string;
  readonly profileName: string;
  running: boolean;
  conversation?: JsonValue;
  /** A run on a worker: settles once its result (conversation) is noted here. */
  queuedRun?: Promise<void>;
  /** The worktree its last run kept (it has changes): a resume continues there. */
  keptWorktree?: Worktree;
}

/**
 * The children an agent remembers for `resume`, most recently run last: each may hold its whole
 * conversation, so an agent starting children all session long must not keep them all.
 */
export const MAX_RESUMABLE_SUBAGENTS = 100;

/**
 * The children of one agent (Agent scope): creates each as an Agent scope of the same App with the
 * parent's policy, grants, host and plan mode, hands it to the App's runner, and keeps what
 * `resume` needs. Disposing the parent aborts every running child.
 */
@injectable()
export class AgentSubagentService implements IAgentSubagentService {
  private readonly children = new Map<string, ChildRecord>();
  private readonly running = new Set<AbortController>();
  private readonly disposables = new DisposableStore();
  private readonly options: AgentOptions;

  constructor(
    @inject(IAgentOptions) options: AgentOptions,
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentFactory) private readonly factory: IAgentFactory,
    @inject(ISubagentRunnerService) private readonly runners: ISubagentRunnerService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentSessionGrants) private readonly grants: IAgentSessionGrants,
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(ISubagentLineage) readonly lineage: SubagentLineage,
    @inject(IAgentToolActivationService) activation: IAgentToolActivationService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentPlanModeService) @optional() private readonly planMode: IAgentPlanModeService | undefined,
    @inject(ISubagentJobQueue) @optional() private readonly jobs: ISubagentJobQueue | undefined,
  ) {
    this.options = options;
    // Binding or unbinding the runner adds or removes Agent: activation is derived state.
    this.disposables.add(runners.onDidChange(() => activation.recompute()));
  }

  get hasRunner(): boolean {
    return this.runners.current !== undefined;
  }

  /** Offered at all: below the depth limit with a runner bound (the `when` of Agent and AgentSwarm). */
  get canStart(): boolean {
    return this.unavailableReason() === undefined;
  }

  unavailableReason(): string | undefined {
    const { maxDepth } = this.config.section(agentConfig);
    if (this.lineage.depth >= maxDepth) return `Subagents cannot start subagents (agent.maxDepth ${maxDepth}).`;
    if (!this.hasRunner) return 'No subagent runner is bound to this App, so subagents cannot run; do the work yourself.';
    return undefined;
  }

  profileNames(): string[] {
    return [...subagentProfiles(this.config.section(agentConfig)).keys()];
  }

  resolveProfile(name: string): ResolvedSubagentProfile | undefined {
    return resolveSubagentProfile(name, this.config.section(agentConfig), this.registry);
  }

  worktreeRepo(): string | undefined {
    return this.runtime.has('process') ? gitWorkTreeRoot(this.workspace.cwd) : undefined;
  }

  newLaunch(request: { readonly description: string; readonly prompt: string; readonly resolved: ResolvedSubagentProfile; readonly worktree?: boolean }): SubagentLaunch {
    const agentId = this.newAgentId();
    const repoDir = request.worktree === true ? this.worktreeRepo() : undefined;
    if (request.worktree === true && repoDir === undefined) throw new Error('newLaunch: isolation "worktree" needs worktreeRepo(); check it first.');
    return {
      agentId,
      description: request.description,
      prompt: request.prompt,
      resolved: request.resolved,
      ...(repoDir !== undefined ? { worktree: { path: this.worktreePathOf(agentId), repoDir } } : {}),
    };
  }

  accessesOf(child: { readonly readOnly: boolean; readonly isolated: boolean }): ToolAccess[] {
    const roots = [this.workspace.cwd, ...this.workspace.additionalDirs];
    if (child.isolated) return [...roots.map((root) => ToolAccesses.readTree(root)), ToolAccesses.writeTree(nodePath.join(this.options.dataDir, 'worktrees'))];
    if (child.readOnly) return roots.map((root) => ToolAccesses.readTree(root));
    return [...roots.map((root) => ToolAccesses.writeTree(root)), ToolAccesses.process()];
  }

  capText(outcome: SubagentOutcome, maxChars: number, configKey: string): { readonly text: string; readonly fullPath?: string } {
    return cappedText(outcome, maxChars, configKey);
  }

  newAgentId(): string {
    for (;;) {
      const id = `agent-${randomBase36(8)}`;
      if (!this.children.has(id)) return id;
    }
  }

  child(agentId: string): { readonly profileName: string; readonly running: boolean; readonly queued: boolean; readonly keptWorktree?: Worktree } | undefined {
    const record = this.children.get(agentId);
    return record && { ...record, queued: record.queuedRun !== undefined };
  }

  /** Resolves once the last run of a child on a worker has been noted (its task may have ended a moment before). */
  async queuedRunNoted(agentId: string): Promise<void> {
    await this.children.get(agentId)?.queuedRun;
  }

  /** Drops the least recently run children that are not running beyond MAX_RESUMABLE_SUBAGENTS. */
  private forgetOldestChildren(): void {
    let excess = this.children.size - MAX_RESUMABLE_SUBAGENTS;
    for (const [id, record] of this.children) {
      if (excess <= 0) return;
      if (record.running) continue;
      this.children.delete(id);
      excess--;
    }
  }

  private worktreeRuntime(): WorktreeRuntime {
    return { process: this.runtime.requireProcess(), fs: this.runtime.requireFs() };
  }

  dataDirOf(agentId: string): string {
    return nodePath.join(this.options.dataDir, 'subagents', agentId);
  }

  /** The parent's working directory (a child's default). */
  get lineageCwd(): string {
    return this.options.cwd;
  }

  /** The folder holding this agent's children's worktrees. */
  get worktreesRoot(): string {
    return nodePath.join(this.options.dataDir, 'worktrees');
  }

  worktreePathOf(agentId: string): string {
    return nodePath.join(this.worktreesRoot, agentId);
  }

  /** The queue background children and swarm items go to, while scale.jobs.subagents is "queue". */
  get jobQueue(): ISubagentJobQueue | undefined {
    return this.jobs?.enabled === true ? this.jobs : undefined;
  }

  placementRefusal(launch: { readonly isolated: boolean }): string | undefined {
    if (!launch.isolated || this.jobQueue === undefined) return undefined;
    return 'isolation "worktree" is not available while subagents run on toolhost workers (scale.jobs.subagents "queue"): leave isolation out, or set scale.jobs.subagents to "local" to run them in this process.';
  }

  /** What a worker needs to run `launch` as this agent would. */
  jobOf(launch: SubagentLaunch, background: boolean): SubagentJob {
    const parent = this.options;
    const resumeFrom = this.children.get(launch.agentId)?.conversation;
    return {
      parent: {
        ...parent,
        depth: this.lineage.depth,
        ...(this.lineage.description !== undefined ? { description: this.lineage.description } : {}),
      },
      agentId: launch.agentId,
      description: launch.description,
      prompt: launch.prompt,
      profile: launch.resolved.profile.name,
      ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
      sessionGrants: [...this.grants.rules],
      timeoutMs: launch.timeoutMs ?? this.config.section(agentConfig).timeoutS * 1000,
      ...(resumeFrom !== undefined ? { resumeFrom } : {}),
      background,
    };
  }

  /**
   * Notes a child that runs elsewhere (on a worker), so `resume` knows it: running until
   * `ended` settles, then with the conversation the worker reported. On a worker, the stand-in
   * parent notes the child with the conversation it resumes.
   */
  noteChild(agentId: string, profileName: string, conversation: JsonValue | undefined, ended?: Promise<QueuedSubagentEnd>): void {
    const record = this.children.get(agentId) ?? { agentId, profileName, running: false };
    this.children.set(agentId, record);
    if (conversation !== undefined) record.conversation = conversation;
    if (!ended) return;
    record.running = true;
    record.queuedRun = ended.then(({ result }) => {
      record.running = false;
      if (result?.conversation !== undefined) record.conversation = result.conversation;
    });
  }

  /** The conversation a child's last run left (what `resume` continues). */
  conversationOf(agentId: string): JsonValue | undefined {
    return this.children.get(agentId)?.conversation;
  }

  /** How a queued child ended, as `run` would have reported it. */
  outcomeOfQueued(launch: SubagentLaunch, end: QueuedSubagentEnd): SubagentOutcome {
    if (end.result) return end.result.outcome;
    const { task } = end;
    return {
      agentId: launch.agentId,
      profileName: launch.resolved.profile.name,
      status: task.status === 'killed' ? 'aborted' : 'failed',
      text: '',
      durationMs: (task.endedAt ?? Date.now()) - task.startedAt,
      filesChanged: [],
      error: task.stopReason ?? `The subagent's job ended ${task.status} without a result.`,
      dataDir: this.dataDirOf(launch.agentId),
    };
  }

  async runWhereConfigured(launch: SubagentLaunch, signal: AbortSignal, listener: SubagentRunListener): Promise<SubagentOutcome> {
    const queue = this.jobQueue;
    if (!queue) return this.run(launch, signal, listener);
    const job = this.jobOf(launch, false);
    let settle!: (end: QueuedSubagentEnd) => void;
    this.noteChild(launch.agentId, launch.resolved.profile.name, undefined, new Promise((resolve) => (settle = resolve)));
    let end: QueuedSubagentEnd;
    try {
      end = await queue.run(job, signal);
    } catch (error) {
      end = { task: failedTask(launch, errorMessage(error)) };
    }
    settle(end);
    return this.outcomeOfQueued(launch, end);
  }

  /** Runs a child to its end. Never throws: a failure is an outcome with `error`. */
  async run(launch: SubagentLaunch, signal: AbortSignal, listener: SubagentRunListener): Promise<SubagentOutcome> {
    const { agentId } = launch;
    const record = this.children.get(agentId) ?? { agentId, profileName: launch.resolved.profile.name, running: false };
    // Re-inserted: the map's order is the order of last runs, oldest first.
    this.children.delete(agentId);
    this.children.set(agentId, record);
    this.forgetOldestChildren();
    record.running = true;
    // Aborted by the call's signal, or by this service when the parent ends.
    const controller = new AbortController();
    const unfollow = abortWith(controller, signal);
    this.running.add(controller);
    const made: MadeForRun = {};
    let outcome: SubagentOutcome;
    try {
      outcome = await this.play(launch, record, controller.signal, listener, made);
    } finally {
      await made.child?.dispose();
      made.releaseHandle?.();
      this.running.delete(controller);
      unfollow();
      record.running = false;
    }
    if (!made.worktree || !launch.worktree) return outcome;
    // After the child ended: none of its processes still writes there.
    const { kept } = await finishWorktree(this.worktreeRuntime(), launch.worktree.repoDir, made.worktree).catch(() => ({ kept: true }));
    if (kept) record.keptWorktree = made.worktree;
    else delete record.keptWorktree;
    return { ...outcome, worktree: { ...made.worktree, kept } };
  }

  private async play(
    launch: SubagentLaunch,
    record: ChildRecord,
    signal: AbortSignal,
    listener: SubagentRunListener,
    made: MadeForRun,
  ): Promise<SubagentOutcome> {
    const started = Date.now();
    const { agentId } = launch;
    const filesChanged = new Set<string>();
    const end = (result: Pick<SubagentOutcome, 'status' | 'text'> & Partial<SubagentOutcome>): SubagentOutcome => ({
      agentId,
      profileName: launch.resolved.profile.name,
      dataDir: this.dataDirOf(agentId),
      ...result,
      durationMs: Date.now() - started,
      filesChanged: [...filesChanged],
    });
    const runner = this.runners.current;
    if (!runner) return end({ status: 'failed', text: '', error: 'No subagent runner is bound to this App any more.' });
    if (launch.worktree) {
      try {
        const kept = record.keptWorktree;
        made.worktree =
          kept && (await worktreeStillThere(this.worktreeRuntime(), kept))
            ? kept
            : await createWorktree(this.worktreeRuntime(), launch.worktree.repoDir, launch.worktree.path, `toolhost/${agentId}`);
      } catch (error) {
        return end({ status: 'failed', text: '', error: `The worktree could not be created: ${errorMessage(error)}` });
      }
    }
    const cwd = made.worktree?.path ?? launch.cwd ?? this.options.cwd;
    const child = (made.child = this.createChild(launch, cwd));
    child.executor.onDidExecuteTool((ctx) => {
      if (ctx.outcome !== 'executed' || ctx.result.isError) return;
      for (const access of ctx.accesses) if (access.kind === 'file' && access.op === 'write' && !access.recursive) filesChanged.add(access.path);
    });
    const timeoutMs = launch.timeoutMs ?? this.config.section(agentConfig).timeoutS * 1000;
    // Ended with the run (AbortSignal.timeout would hold every run for agent.timeoutS).
    const deadline = deadlineSignal(signal, timeoutMs, () => new Error('agent.timeoutS'));
    const runSignal = deadline.signal;
    // The child ends at once on abort (its tasks are killed), whether or not the runner listens.
    const onAbort = () => void child.dispose();
    runSignal.addEventListener('abort', onAbort, { once: true });
    let result: SubagentRunResult;
    try {
      const { handle, release } = createAgentHandle(child, { parentAgentId: this.options.id, depth: this.lineage.depth + 1, description: launch.description, cwd });
      made.releaseHandle = release;
      const running = runner.run(runRequest(handle, launch, runSignal, listener, record.conversation));
      result = await untilSettledOrAbandoned(running, runSignal, this.config.config.executor.abortGraceMs);
    } catch (error) {
      result = { status: runSignal.aborted ? 'aborted' : 'failed', text: '', error: errorMessage(error) };
    } finally {
      deadline.dispose();
      runSignal.removeEventListener('abort', onAbort);
    }
    if (result.conversation !== undefined) record.conversation = result.conversation;
    const details = { text: result.text, ...(result.turns !== undefined ? { turns: result.turns } : {}), ...(result.usage ? { usage: result.usage } : {}) };
    if (deadline.timedOut && !signal.aborted) return end({ status: 'failed', ...details, error: `The subagent timed out after ${formatDuration(timeoutMs)} (agent.timeoutS).` });
    if (signal.aborted) return end({ status: 'aborted', ...details, error: 'The subagent was aborted.' });
    return end({
      status: result.status,
      ...details,
      ...(result.error !== undefined ? { error: result.error } : {}),
      ...(result.status === 'failed' && result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
    });
  }

  private createChild(launch: SubagentLaunch, cwd: string): ScopedAgent {
    const parent = this.options;
    const label = `from subagent ${launch.description}`;
    const lineage: SubagentLineage = { depth: this.lineage.depth + 1, description: launch.description };
    const planMode = this.planMode;
    const child = this.factory.createAgent({
      id: launch.agentId,
      cwd,
      additionalDirs: cwd === parent.cwd ? parent.additionalDirs : [],
      homeDir: parent.homeDir,
      dataDir: this.dataDirOf(launch.agentId),
      disabledTools: parent.disabledTools,
      parentAgentId: parent.id,
      runtime: this.runtime.current,
      profile: launch.resolved.policy,
      overrides: (container) => {
        container.rebind(ISessionInteractionService).toConstantValue(new SubagentInteractionService(() => this.services.get(ISessionInteractionService), label));
        container.rebind(IAgentSessionGrants).toConstantValue(this.grants);
        container.rebind(ISubagentLineage).toConstantValue(lineage);
        // The child has no plan mode of its own (no state to read): it shares the parent's, which
        // holds it through the guard below. A constant: disposing the child leaves it alone.
        if (planMode) container.rebind(IAgentPlanModeService).toConstantValue(planMode);
      },
    });
    if (planMode) {
      // The parent's plan mode holds the child too: it may only read while the parent plans.
      child.executor.onBeforeExecuteTool(
        (ctx) => planMode.guardCall(ctx),
        { name: 'parent plan mode guard', order: PLAN_GUARD_ORDER },
      );
    }
    return child;
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    for (const controller of this.running) controller.abort(new Error('The parent agent ended.'));
  }
}

/** The stand-in task of a queued child whose job could not be queued or read. */
function failedTask(launch: SubagentLaunch, reason: string): TaskInfo {
  const now = Date.now();
  return {
    id: '',
    kind: 'agent',
    description: launch.description,
    command: '',
    agentId: launch.agentId,
    cwd: launch.cwd ?? '',
    status: 'failed',
    startedAt: now,
    endedAt: now,
    stopReason: `The subagent could not run on a worker: ${reason}`,
    outputBytes: 0,
    outputPath: '',
    outputCapped: false,
    forceKilled: false,
  };
}

/**
 * The runner's request. Built here, apart from the run's locals: a closure shares its function's
 * context, so an `onEvent` made inside the run would keep the child alive for as long as a runner
 * keeps the request.
 */
function runRequest(child: AgentHandle, launch: SubagentLaunch, signal: AbortSignal, { progress, onEvent }: SubagentRunListener, resumeFrom: JsonValue | undefined): SubagentRunRequest {
  return {
    child,
    prompt: launch.prompt,
    profile: launch.resolved.profile,
    signal,
    onEvent: (event) => {
      onEvent?.(event);
      if (event.type === 'turn') progress(`turn ${event.turn}`);
      else if (event.type === 'rate_limited') progress(`rate limited; retrying in ${formatDuration(event.retryAfterMs)}`);
    },
    ...(resumeFrom !== undefined ? { resumeFrom } : {}),
  };
}

/** The runner's result; after an abort, at most `graceMs` more (a runner that ignores the signal is left behind). */
async function untilSettledOrAbandoned(running: Promise<SubagentRunResult>, signal: AbortSignal, graceMs: number): Promise<SubagentRunResult> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<SubagentRunResult>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve({ status: 'aborted', text: '', error: 'The runner did not stop after the abort.' }), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([running, abandoned]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
