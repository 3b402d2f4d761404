// The goal feature's public surface (`toolhost/features/goal`): the main agent's goal, its budget, and its tools.
export { createGoalFeature } from './goalFeature';
export { IAgentGoalService, GoalError, GOAL_BUDGET_UNITS, type GoalBudgetUnit, type GoalReport, type GoalStatus, type CreateGoalRequest } from './contract';
export { AgentGoalService } from './agentGoalService';
export { GOAL_STATE_KEY, MIN_TOKEN_BUDGET, MAX_TIME_BUDGET_MINUTES } from './goalModel';
export {
  CreateGoalTool,
  GetGoalTool,
  UpdateGoalTool,
  SetGoalBudgetTool,
  ICreateGoalTool,
  IGetGoalTool,
  IUpdateGoalTool,
  ISetGoalBudgetTool,
  createGoalTool,
  getGoalTool,
  updateGoalTool,
  setGoalBudgetTool,
} from './goalTools';
export { CreateGoalInputSchema, GetGoalInputSchema, UpdateGoalInputSchema, SetGoalBudgetInputSchema, type CreateGoalInput, type GetGoalInput, type UpdateGoalInput, type SetGoalBudgetInput } from './goalSchemas';
