import { z } from 'zod';
import { GOAL_BUDGET_UNITS } from './contract';
import { MAX_TIME_BUDGET_MINUTES, MIN_TOKEN_BUDGET } from './goalModel';

export const CreateGoalInputSchema = z.object({
  objective: z.string().min(1).max(4000).describe('What the user wants achieved, in their terms.'),
  completion_criterion: z.string().max(4000).optional().describe('How to tell the goal is met (e.g. "npm test passes").'),
  token_budget: z.number().int().min(MIN_TOKEN_BUDGET).optional().describe('Only when the user gave one: the tokens the goal may use.'),
  time_budget_minutes: z.number().min(1).max(MAX_TIME_BUDGET_MINUTES).optional().describe('Only when the user gave one: the minutes the goal may take.'),
  replace: z.boolean().optional().describe('Replace the active goal; only when the user asked to replace it.'),
});
export type CreateGoalInput = z.infer<typeof CreateGoalInputSchema>;

export const GetGoalInputSchema = z.object({});
export type GetGoalInput = z.infer<typeof GetGoalInputSchema>;

export const UpdateGoalInputSchema = z.object({
  status: z.enum(['complete', 'blocked']).describe('complete: the completion criterion is met; blocked: you cannot go on without the user.'),
  reason: z.string().min(1).max(4000).optional().describe('Required for blocked: what blocks the goal and what would unblock it. For complete: the evidence.'),
});
export type UpdateGoalInput = z.infer<typeof UpdateGoalInputSchema>;

export const SetGoalBudgetInputSchema = z.object({
  value: z.number().positive().describe('The new budget, in `unit`.'),
  unit: z.enum(GOAL_BUDGET_UNITS).describe('tokens (at least 1000), turns, or time in minutes or hours (1 minute to 24 hours).'),
});
export type SetGoalBudgetInput = z.infer<typeof SetGoalBudgetInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const CREATE_GOAL_SAMPLES: readonly CreateGoalInput[] = [
  { objective: 'Make the parser handle CRLF input' },
  { objective: 'Migrate the tests to vitest', completion_criterion: 'npm test passes', token_budget: 200_000, time_budget_minutes: 90, replace: true },
];
export const GET_GOAL_SAMPLES: readonly GetGoalInput[] = [{}];
export const UPDATE_GOAL_SAMPLES: readonly UpdateGoalInput[] = [{ status: 'complete', reason: 'npm test passes' }, { status: 'blocked', reason: 'Needs the API key' }];
export const SET_GOAL_BUDGET_SAMPLES: readonly SetGoalBudgetInput[] = [
  { value: 50_000, unit: 'tokens' },
  { value: 2, unit: 'hours' },
];
