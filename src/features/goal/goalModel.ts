import { formatDuration } from '../../base/strings';
import { type GoalBudgetUnit, GoalError, type GoalReport, type GoalStatus } from './contract';

/** What the state store keeps under `goal`: the goal (absent: none) and the number of the next id. */
export interface GoalState {
  readonly goal?: StoredGoal;
  readonly nextId: number;
}

/**
 * A goal as stored: the report's fields without what is evaluated at read time (`budget_limited`,
 * elapsed and remaining budgets).
 */
export type StoredGoal = Omit<GoalReport, 'status' | 'elapsedMs' | 'remaining' | 'overBudget'> & {
  readonly status: Exclude<GoalStatus, 'budget_limited'>;
};

/** The state key of the goal. */
export const GOAL_STATE_KEY = 'goal';
export const EMPTY_GOAL_STATE: GoalState = { nextId: 1 };
export const MIN_TOKEN_BUDGET = 1000;
export const MAX_TIME_BUDGET_MINUTES = 1440;
export const NO_GOAL_MESSAGE = 'There is no goal; CreateGoal starts one when the user asks for it.';

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Why a stored value is not goal state (undefined: it is); the store sets such a value aside. */
export function goalStateProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not goal state';
  const { goal, nextId } = value as { goal?: Partial<StoredGoal> | null; nextId?: unknown };
  if (!isCount(nextId) || nextId < 1) return 'its "nextId" is not a positive integer';
  if (goal === undefined) return undefined;
  const valid =
    typeof goal === 'object' &&
    goal !== null &&
    typeof goal.goalId === 'string' &&
    typeof goal.objective === 'string' &&
    (goal.status === 'active' || goal.status === 'complete' || goal.status === 'blocked') &&
    isCount(goal.tokensUsed) &&
    isCount(goal.turns) &&
    typeof goal.createdAt === 'number';
  return valid ? undefined : 'its "goal" is not a goal';
}

/** A stored value (checked with goalStateProblem) as a GoalState; absent: no goal. */
export function toGoalState(value: unknown): GoalState {
  if (value === undefined || goalStateProblem(value) !== undefined) return EMPTY_GOAL_STATE;
  return value as GoalState;
}

/** The goal with its budgets evaluated at `now`. */
export function goalReport(goal: StoredGoal, now: number): GoalReport {
  const elapsedMs = Math.max(0, now - goal.createdAt);
  const remaining = {
    ...(goal.tokenBudget !== undefined ? { tokens: Math.max(0, goal.tokenBudget - goal.tokensUsed) } : {}),
    ...(goal.turnBudget !== undefined ? { turns: Math.max(0, goal.turnBudget - goal.turns) } : {}),
    ...(goal.timeBudgetMs !== undefined ? { timeMs: Math.max(0, goal.timeBudgetMs - elapsedMs) } : {}),
  };
  const overBudget = remaining.tokens === 0 || remaining.turns === 0 || remaining.timeMs === 0;
  const status: GoalStatus = goal.status === 'active' && overBudget ? 'budget_limited' : goal.status;
  return { ...goal, status, elapsedMs, remaining, overBudget };
}

/** The budget field a SetGoalBudget call sets, and its value; GoalError when out of range. */
export function budgetChange(value: number, unit: GoalBudgetUnit): Partial<Pick<StoredGoal, 'tokenBudget' | 'turnBudget' | 'timeBudgetMs'>> {
  if (!Number.isFinite(value) || value <= 0) throw new GoalError(`A budget is a positive number; ${value} ${unit} is not.`);
  switch (unit) {
    case 'tokens':
      if (!Number.isInteger(value) || value < MIN_TOKEN_BUDGET) throw new GoalError(`A token budget is a whole number of at least ${MIN_TOKEN_BUDGET} tokens; ${value} is not.`);
      return { tokenBudget: value };
    case 'turns':
      if (!Number.isInteger(value)) throw new GoalError(`A turn budget is a whole number of turns; ${value} is not.`);
      return { turnBudget: value };
    case 'minutes':
    case 'hours': {
      const minutes = unit === 'hours' ? value * 60 : value;
      if (minutes < 1 || minutes > MAX_TIME_BUDGET_MINUTES) throw new GoalError(`A time budget is between 1 minute and 24 hours; ${value} ${unit} is not.`);
      return { timeBudgetMs: Math.round(minutes * 60_000) };
    }
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `key: value` lines of a report; the same fields, snake_case, are the structured content. */
export function goalFields(report: GoalReport): Record<string, string | number | boolean> {
  return {
    goal_id: report.goalId,
    status: report.status,
    objective: report.objective,
    ...(report.completionCriterion !== undefined ? { completion_criterion: report.completionCriterion } : {}),
    ...(report.reason !== undefined ? { reason: report.reason } : {}),
    tokens_used: report.tokensUsed,
    ...(report.tokenBudget !== undefined ? { tokens_budget: report.tokenBudget, tokens_remaining: report.remaining.tokens ?? 0 } : {}),
    turns: report.turns,
    ...(report.turnBudget !== undefined ? { turns_budget: report.turnBudget, turns_remaining: report.remaining.turns ?? 0 } : {}),
    created_at: iso(report.createdAt),
    elapsed: formatDuration(report.elapsedMs),
    ...(report.timeBudgetMs !== undefined ? { time_budget: formatDuration(report.timeBudgetMs), time_remaining: formatDuration(report.remaining.timeMs ?? 0) } : {}),
    over_budget: report.overBudget,
  };
}

export function goalLines(report: GoalReport): string {
  return Object.entries(goalFields(report))
    .map(([key, value]) => `${key}: ${String(value).replace(/\s*\n\s*/g, ' ')}`)
    .join('\n');
}

/** An objective shortened for a one-line message. */
export function shortObjective(objective: string): string {
  const line = objective.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
