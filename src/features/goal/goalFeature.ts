import { Feature } from '../../di/feature';
import { AgentGoalService } from './agentGoalService';
import { IAgentGoalService } from './contract';
import { createGoalTool, getGoalTool, setGoalBudgetTool, updateGoalTool } from './goalTools';

/** The main agent's durable goal (IAgentGoalService, fed by the host) and CreateGoal, GetGoal, UpdateGoal and SetGoalBudget. */
export function createGoalFeature() {
  return new Feature('goal')
    .bindAgent(({ bind }) => bind(IAgentGoalService).to(AgentGoalService).inSingletonScope())
    .contributeTool(createGoalTool)
    .contributeTool(getGoalTool)
    .contributeTool(updateGoalTool)
    .contributeTool(setGoalBudgetTool);
}
