import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type AgentStateOwner, IAgentStateStore, type JsonValue, updateAgentState } from '../../services/agentState/agentState';
import { IClock } from '../../services/clock/clock';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { type CreateGoalRequest, type GoalBudgetUnit, GoalError, type GoalReport, type IAgentGoalService } from './contract';
import { budgetChange, GOAL_STATE_KEY, goalStateProblem, type GoalState, goalReport, NO_GOAL_MESSAGE, shortObjective, type StoredGoal, toGoalState } from './goalModel';

@injectable()
export class AgentGoalService implements IAgentGoalService {
  private readonly changeEmitter = new Emitter<GoalReport>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly owner: AgentStateOwner;
  private known: string | undefined;

  constructor(
    @inject(IAgentStateStore) private readonly store: IAgentStateStore,
    @inject(IClock) private readonly clock: IClock,
    @inject(IAgentOptions) options: AgentOptions,
  ) {
    this.owner = { agentId: options.id, dataDir: options.dataDir };
  }

  get knownGoalId(): string | undefined {
    return this.known;
  }

  async get(): Promise<GoalReport | undefined> {
    const { goal } = toGoalState((await this.store.get(this.owner, GOAL_STATE_KEY, { check: goalStateProblem }))?.value);
    this.known = goal?.goalId;
    return goal && goalReport(goal, this.clock.now());
  }

  async shouldContinue(): Promise<boolean> {
    return (await this.get())?.status === 'active';
  }

  async create(request: CreateGoalRequest): Promise<GoalReport> {
    const objective = request.objective.trim();
    if (objective === '') throw new GoalError('The objective is empty; say what the goal is.');
    const budgets = {
      ...(request.tokenBudget !== undefined ? budgetChange(request.tokenBudget, 'tokens') : {}),
      ...(request.timeBudgetMinutes !== undefined ? budgetChange(request.timeBudgetMinutes, 'minutes') : {}),
    };
    return this.write((state, now) => {
      const current = state.goal && goalReport(state.goal, now);
      if (current && (current.status === 'active' || current.status === 'budget_limited') && request.replace !== true) {
        throw new GoalError(`A goal is active ("${shortObjective(current.objective)}"); set replace: true only if the user asked to replace it.`);
      }
      const goal: StoredGoal = {
        goalId: `g${state.nextId}`,
        status: 'active',
        objective,
        ...(request.completionCriterion?.trim() ? { completionCriterion: request.completionCriterion.trim() } : {}),
        tokensUsed: 0,
        turns: 0,
        ...budgets,
        createdAt: now,
      };
      return { goal, nextId: state.nextId + 1 };
    });
  }

  async update(status: 'complete' | 'blocked', reason?: string, expectedGoalId?: string): Promise<GoalReport> {
    if (status === 'blocked' && !reason?.trim()) throw new GoalError('A blocked goal needs a reason: say what blocks it and what would unblock it.');
    return this.modify(expectedGoalId, (goal) => ({ ...goal, status, ...(reason?.trim() ? { reason: reason.trim() } : {}) }));
  }

  async setBudget(value: number, unit: GoalBudgetUnit, expectedGoalId?: string): Promise<GoalReport> {
    const budget = budgetChange(value, unit);
    // A budget-limited goal is `active` stored; the new budget alone decides whether it is limited still.
    return this.modify(expectedGoalId, (goal) => ({ ...goal, ...budget }));
  }

  async recordUsage(usage: { readonly tokens: number; readonly turns: number }): Promise<GoalReport | undefined> {
    for (const name of ['tokens', 'turns'] as const) {
      const n: unknown = usage[name];
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new GoalError(`recordUsage: ${name} is a count of this turn's ${name} (a whole number ≥ 0), not ${String(n)}.`);
    }
    const before = await this.get();
    if (!before || (before.status !== 'active' && before.status !== 'budget_limited')) return undefined;
    try {
      return await this.modify(before.goalId, (goal) => ({ ...goal, tokensUsed: goal.tokensUsed + usage.tokens, turns: goal.turns + usage.turns }));
    } catch (error) {
      // The goal ended or was replaced meanwhile: this turn's usage was not its.
      if (error instanceof GoalError) return undefined;
      throw error;
    }
  }

  /** Writes the goal with compare-and-set and fires onDidChange. */
  private async write(mutate: (state: GoalState, now: number) => GoalState): Promise<GoalReport> {
    const now = this.clock.now();
    const { result } = await updateAgentState(this.store, this.owner, GOAL_STATE_KEY, (entry) => {
      const next = mutate(toGoalState(entry?.value), now);
      return { value: next as unknown as JsonValue, result: next.goal! };
    }, { check: goalStateProblem });
    const report = goalReport(result, now);
    this.known = report.goalId;
    this.changeEmitter.fire(report);
    return report;
  }

  /** Changes the existing goal: "no goal", and another goal than `expectedGoalId`, are GoalErrors. */
  private modify(expectedGoalId: string | undefined, change: (goal: StoredGoal) => StoredGoal): Promise<GoalReport> {
    return this.write((state) => {
      if (!state.goal) throw new GoalError(NO_GOAL_MESSAGE);
      if (expectedGoalId !== undefined && state.goal.goalId !== expectedGoalId) {
        throw new GoalError(`The goal changed since this call was made (it is now ${state.goal.goalId}, "${shortObjective(state.goal.objective)}"); call GetGoal and decide again.`);
      }
      return { ...state, goal: change(state.goal) };
    });
  }

  @preDestroy()
  dispose(): void {
    this.changeEmitter.dispose();
  }
}
