import { randomBytes } from 'node:crypto';
import * as nodePath from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { DisposableStore } from '../../base/lifecycle';
import { formatDuration } from '../../base/strings';
import type { ServiceAccessor } from '../../di/toolContribution';
import { IAgentFactory, type ScopedAgent } from '../../services/agentFactory/agentFactory';
import type { JsonValue } from '../../services/agentState/agentState';
import { IAgentSessionGrants } from '../../services/approval/toolApproval';
import { IConfigService } from '../../services/config/config';
import { ISessionInteractionService } from '../../services/interaction/interaction';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { IAgentServiceAccessor, IAgentToolActivationService } from '../../services/toolActivation/toolActivation';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { toolError } from '../../tool/contract';
import { IAgentPlanModeService, PLAN_GUARD_ORDER, planModeRefusal, planModeVetoMessage } from '../../features/plan/contract';
import { agentConfig } from './agentConfig';
import { createAgentHandle } from './agentHandle';
import { ISubagentRunnerService, type SubagentRunResult, type SubagentUsage } from './contract';
import { ISubagentLineage, type SubagentLineage } from './lineage';
import { SubagentInteractionService } from './subagentInteractions';
import type { ResolvedSubagentProfile } from './subagentProfiles';
import { createWorktree, finishWorktree, type Worktree } from './worktree';

/** One child this agent started: what `resume` needs. */
interface ChildRecord {
  readonly agentId: string;
  readonly profileName: string;
  running: boolean;
  conversation?: JsonValue;
}

/** What the Agent tool asks for: a resolved call. */
export interface SubagentLaunch {
  readonly agentId: string;
  readonly description: string;
  readonly prompt: string;
  readonly resolved: ResolvedSubagentProfile;
  /** Under isolation: the worktree folder to create (and the repository it belongs to). */
  readonly worktree?: { readonly path: string; readonly repoDir: string };
  /** Without a worktree: the child's working directory (default the parent's). */
  readonly cwd?: string;
}

export interface SubagentOutcome {
  readonly agentId: string;
  readonly profileName: string;
  readonly status: SubagentRunResult['status'];
  readonly text: string;
  readonly turns?: number;
  readonly usage?: SubagentUsage;
  readonly durationMs: number;
  /** Canonical paths the child wrote (its successful calls' declared file writes), in order. */
  readonly filesChanged: readonly string[];
  readonly error?: string;
  readonly worktree?: Worktree & { readonly kept: boolean };
  /** Where the child's data (and the full result) lives. */
  readonly dataDir: string;
}

export type SubagentProgress = (text: string) => void;

function randomBase36(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += (byte % 36).toString(36);
  return out;
}

/**
 * The children of one agent (Agent scope): creates each as an Agent scope of the same App with the
 * parent's policy, grants, host and plan mode, hands it to the App's runner, and keeps what
 * `resume` needs. Disposing the parent aborts every running child.
 */
@injectable()
export class AgentSubagentService {
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
    @inject(IAgentPlanModeService) @optional() private readonly planMode: IAgentPlanModeService | undefined,
  ) {
    this.options = options;
    // Binding or unbinding the runner adds or removes Agent: activation is derived state.
    this.disposables.add(runners.onDidChange(() => activation.recompute()));
  }

  get hasRunner(): boolean {
    return this.runners.current !== undefined;
  }

  newAgentId(): string {
    for (;;) {
      const id = `agent-${randomBase36(8)}`;
      if (!this.children.has(id)) return id;
    }
  }

  child(agentId: string): { readonly profileName: string; readonly running: boolean } | undefined {
    return this.children.get(agentId);
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

  /** Runs a child to its end. Never throws: a failure is an outcome with `error`. */
  async run(launch: SubagentLaunch, signal: AbortSignal, progress: SubagentProgress): Promise<SubagentOutcome> {
    const { agentId } = launch;
    const record = this.children.get(agentId) ?? { agentId, profileName: launch.resolved.profile.name, running: false };
    this.children.set(agentId, record);
    record.running = true;
    const controller = new AbortController();
    this.running.add(controller);
    const made: { worktree?: Worktree; child?: ScopedAgent } = {};
    let outcome: SubagentOutcome;
    try {
      outcome = await this.play(launch, record, AbortSignal.any([signal, controller.signal]), progress, made);
    } finally {
      await made.child?.dispose();
      this.running.delete(controller);
      record.running = false;
    }
    if (!made.worktree || !launch.worktree) return outcome;
    // After the child ended: none of its processes still writes there.
    const { kept } = await finishWorktree(launch.worktree.repoDir, made.worktree).catch(() => ({ kept: true }));
    return { ...outcome, worktree: { ...made.worktree, kept } };
  }

  private async play(
    launch: SubagentLaunch,
    record: ChildRecord,
    signal: AbortSignal,
    progress: SubagentProgress,
    made: { worktree?: Worktree; child?: ScopedAgent },
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
        made.worktree = await createWorktree(launch.worktree.repoDir, launch.worktree.path, `toolhost/${agentId}`);
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
    const timeoutMs = this.config.section(agentConfig).timeoutS * 1000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const runSignal = AbortSignal.any([signal, timeout]);
    // The child ends at once on abort (its tasks are killed), whether or not the runner listens.
    const onAbort = () => void child.dispose();
    runSignal.addEventListener('abort', onAbort, { once: true });
    let result: SubagentRunResult;
    try {
      const handle = createAgentHandle(child, { parentAgentId: this.options.id, depth: this.lineage.depth + 1, description: launch.description, cwd });
      const running = runner.run({
        child: handle,
        prompt: launch.prompt,
        profile: launch.resolved.profile,
        signal: runSignal,
        onEvent: (event) => {
          if (event.type === 'turn') progress(`turn ${event.turn}`);
          else if (event.type === 'rate_limited') progress(`rate limited; retrying in ${formatDuration(event.retryAfterMs)}`);
        },
        ...(record.conversation !== undefined ? { resumeFrom: record.conversation } : {}),
      });
      result = await untilSettledOrAbandoned(running, runSignal, this.config.config.executor.abortGraceMs);
    } catch (error) {
      result = { status: runSignal.aborted ? 'aborted' : 'failed', text: '', error: errorMessage(error) };
    } finally {
      runSignal.removeEventListener('abort', onAbort);
    }
    if (result.conversation !== undefined) record.conversation = result.conversation;
    const details = { text: result.text, ...(result.turns !== undefined ? { turns: result.turns } : {}), ...(result.usage ? { usage: result.usage } : {}) };
    if (timeout.aborted && !signal.aborted) return end({ status: 'failed', ...details, error: `The subagent timed out after ${formatDuration(timeoutMs)} (agent.timeoutS).` });
    if (signal.aborted) return end({ status: 'aborted', ...details, error: 'The subagent was aborted.' });
    return end({ status: result.status, ...details, ...(result.error !== undefined ? { error: result.error } : {}) });
  }

  private createChild(launch: SubagentLaunch, cwd: string): ScopedAgent {
    const parent = this.options;
    const label = `from subagent ${launch.description}`;
    const lineage: SubagentLineage = { depth: this.lineage.depth + 1, description: launch.description };
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
      },
    });
    const planMode = this.planMode;
    if (planMode) {
      // The parent's plan mode holds the child too: it may only read while the parent plans.
      child.executor.onBeforeExecuteTool(
        async (ctx) => {
          const state = await planMode.current();
          if (!state) return;
          const refusal = planModeRefusal(ctx, state.planFile);
          if (refusal !== undefined) ctx.veto(toolError(planModeVetoMessage(refusal, state.planFile)), 'vetoed');
        },
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
