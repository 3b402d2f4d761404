import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/** The goal feature's contract for other features and hosts: the main agent's goal and its budget. */

/** `budget_limited` is `active` past a budget: raising the budget makes it `active` again. */
export type GoalStatus = 'active' | 'complete' | 'blocked' | 'budget_limited';
export const GOAL_BUDGET_UNITS = ['tokens', 'turns', 'minutes', 'hours'] as const;
export type GoalBudgetUnit = (typeof GOAL_BUDGET_UNITS)[number];

/** The goal as the tools and the host see it, budgets evaluated at `now`. */
export interface GoalReport {
  /** `g1`, `g2`, …: a new goal gets a new id. */
  readonly goalId: string;
  readonly status: GoalStatus;
  readonly objective: string;
  readonly completionCriterion?: string;
  /** Why the goal is blocked (or what completed it), as UpdateGoal gave it. */
  readonly reason?: string;
  readonly tokensUsed: number;
  readonly turns: number;
  readonly tokenBudget?: number;
  readonly turnBudget?: number;
  readonly timeBudgetMs?: number;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly elapsedMs: number;
  readonly remaining: { readonly tokens?: number; readonly turns?: number; readonly timeMs?: number };
  readonly overBudget: boolean;
}

export interface CreateGoalRequest {
  readonly objective: string;
  readonly completionCriterion?: string;
  readonly tokenBudget?: number;
  readonly timeBudgetMinutes?: number;
  /** Replace a goal that is still active (only when the user asked). */
  readonly replace?: boolean;
}

/** A goal call the service refuses (no goal, a goal already active, out of range); the message says what to do. */
export class GoalError extends Error {
  override readonly name = 'GoalError';
}

/**
 * The goal of a main agent (Agent scope), durable in IAgentStateStore under `goal`. The host feeds
 * it: `recordUsage` after each model turn, `shouldContinue` when the loop goes idle (continuing is
 * the host's job). Methods that take `expectedGoalId` refuse with GoalError when the goal was
 * replaced since the caller looked (a tool call resolved before the change).
 */
export interface IAgentGoalService {
  /** The goal, or undefined when there is none. */
  get(): Promise<GoalReport | undefined>;
  create(request: CreateGoalRequest): Promise<GoalReport>;
  /** Marks the goal complete or blocked; `reason` is required for blocked. */
  update(status: 'complete' | 'blocked', reason?: string, expectedGoalId?: string): Promise<GoalReport>;
  /** Sets the token, turn or time budget (minutes and hours are one time budget). */
  setBudget(value: number, unit: GoalBudgetUnit, expectedGoalId?: string): Promise<GoalReport>;
  /** Adds a model turn's usage to an active or budget-limited goal; undefined when there is no such goal. */
  recordUsage(usage: { readonly tokens: number; readonly turns: number }): Promise<GoalReport | undefined>;
  /** Whether the host should continue working on the goal: there is one and it is `active` (within budget). */
  shouldContinue(): Promise<boolean>;
  /** The id of the goal as last read or written, without I/O (for resolve-time checks); undefined when unknown. */
  readonly knownGoalId: string | undefined;
  /** GoalChanged: fires after each write of the goal (created, updated, budget set, usage recorded), with the new report. */
  readonly onDidChange: Event<GoalReport>;
}
export const IAgentGoalService = createServiceId<IAgentGoalService>('AgentGoalService');
