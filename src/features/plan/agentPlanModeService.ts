import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { DisposableStore } from '../../base/lifecycle';
import { type AgentStateOwner, IAgentStateStore, type JsonValue, updateAgentState } from '../../services/agentState/agentState';
import { askBeforeApproval } from '../../services/approval/askBeforeApproval';
import { IAgentToolApprovalService } from '../../services/approval/toolApproval';
import { IClock } from '../../services/clock/clock';
import { type BeforeExecuteContext, IAgentToolExecutorService } from '../../services/executor/toolExecutor';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { toolError } from '../../tool/contract';
import { type IAgentPlanModeService, type ModeChangedEvent, PLAN_GUARD_ORDER, PlanModeError, type PlanModeState } from './contract';
import { PLAN_MODE_STATE_KEY, planModeDecision, planModeVetoMessage } from './planGuard';

function planModeProblem(value: JsonValue): string | undefined {
  // null: plan mode was left.
  if (value === null) return undefined;
  const v = value as Partial<PlanModeState>;
  return typeof v === 'object' && v.mode === 'plan' && typeof v.planFile === 'string' ? undefined : 'not a plan mode state ({mode: "plan", planFile} or null)';
}

/** `20261201-163311` in UTC: plan files sort by when they were started. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

@injectable()
export class AgentPlanModeService implements IAgentPlanModeService {
  private readonly changeEmitter = new Emitter<ModeChangedEvent>();
  readonly onDidChangeMode = this.changeEmitter.event;
  private readonly owner: AgentStateOwner;
  private readonly disposables = new DisposableStore();
  /** The mode as last read or written; `loading` until the first read settles (the guard waits for it). */
  private state: PlanModeState | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    @inject(IAgentStateStore) private readonly store: IAgentStateStore,
    @inject(IAgentOptions) private readonly options: AgentOptions,
    @inject(IClock) private readonly clock: IClock,
    @inject(IAgentToolExecutorService) executor: IAgentToolExecutorService,
    @inject(IAgentToolApprovalService) private readonly approval: IAgentToolApprovalService,
  ) {
    this.owner = { agentId: options.id, dataDir: options.dataDir };
    this.loading = this.read().then(
      () => {
        this.loading = undefined;
      },
      () => {
        // An unreadable store reads as "off" here; current() reports the error to whoever asks.
        this.loading = undefined;
      },
    );
    this.disposables.add(executor.onBeforeExecuteTool((ctx) => this.guardCall(ctx), { name: 'plan mode guard', order: PLAN_GUARD_ORDER }));
  }

  private async read(): Promise<PlanModeState | undefined> {
    const entry = await this.store.get(this.owner, PLAN_MODE_STATE_KEY, { check: planModeProblem });
    this.state = (entry?.value ?? undefined) as PlanModeState | undefined;
    return this.state;
  }

  /** No promise when the mode is known to be off or the call may run: most calls pay a branch or two. */
  guardCall(ctx: BeforeExecuteContext): Promise<void> | undefined {
    if (this.loading) return this.loading.then(() => this.check(ctx));
    return this.check(ctx);
  }

  private check(ctx: BeforeExecuteContext): Promise<void> | undefined {
    const state = this.state;
    if (!state) return undefined;
    const decision = planModeDecision(ctx, state.planFile);
    if (decision.kind === 'veto') ctx.veto(toolError(planModeVetoMessage(decision.refusal, state.planFile)), 'vetoed');
    else if (decision.kind === 'ask') return askBeforeApproval(this.approval, ctx, decision.reason);
    return undefined;
  }

  get knownPlanFile(): string | undefined {
    return this.state?.planFile;
  }

  current(): Promise<PlanModeState | undefined> {
    return this.read();
  }

  async enter(): Promise<PlanModeState> {
    const { result } = await updateAgentState(
      this.store,
      this.owner,
      PLAN_MODE_STATE_KEY,
      (current) => {
        if (current && current.value !== null) throw new PlanModeError(`Plan mode is already active; write the plan to ${(current.value as unknown as PlanModeState).planFile} and call ExitPlanMode.`);
        const state: PlanModeState = { mode: 'plan', planFile: this.createPlanFile() };
        return { value: state as unknown as JsonValue, result: state };
      },
      { check: planModeProblem },
    );
    this.state = result;
    this.changeEmitter.fire({ mode: 'plan', planFile: result.planFile });
    return result;
  }

  async exit(approval: 'reviewed' | 'auto-approved'): Promise<void> {
    const current = await this.read();
    if (!current) throw new PlanModeError('Plan mode is not active; call EnterPlanMode first.');
    await this.store.put(this.owner, PLAN_MODE_STATE_KEY, null);
    this.state = undefined;
    this.changeEmitter.fire({ mode: 'normal', planFile: current.planFile, approval });
  }

  /** An empty `<dataDir>/plans/plan-<utc stamp>[-n].md`, created exclusively; its canonical path. */
  private createPlanFile(): string {
    const dir = nodePath.join(this.options.dataDir, 'plans');
    fs.mkdirSync(dir, { recursive: true });
    const base = `plan-${stamp(this.clock.now())}`;
    for (let n = 1; ; n++) {
      const file = nodePath.join(dir, n === 1 ? `${base}.md` : `${base}-${n}.md`);
      try {
        fs.writeFileSync(file, '', { flag: 'wx' });
        return fs.realpathSync.native(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    this.changeEmitter.dispose();
  }
}
