import { Feature } from '../../di/feature';
import { AgentPlanModeService } from './agentPlanModeService';
import { IAgentPlanModeService } from './contract';
import { planConfig } from './planConfig';
import { enterPlanModeTool, exitPlanModeTool } from './planTools';

/** Plan mode (IAgentPlanModeService and its guard before approval), EnterPlanMode and ExitPlanMode. */
export function createPlanFeature() {
  return new Feature('plan')
    .contributeConfig(planConfig)
    .bindAgent(({ bind }) => {
      bind(IAgentPlanModeService).to(AgentPlanModeService).inSingletonScope();
    })
    // It registers the guard on the executor.
    .startWithAgent(IAgentPlanModeService)
    .contributeTool(enterPlanModeTool)
    .contributeTool(exitPlanModeTool);
}
