import { Feature } from '../../di/feature';
import { agentConfig } from './agentConfig';
import { agentTool } from './agentTool';
import { AgentSubagentService } from './agentSubagentService';
import { IAgentSubagentService, ISubagentJobHost, ISubagentLauncher, ISubagentRunnerService } from './contract';
import { SubagentJobHost } from './subagentJobHost';
import { SubagentLauncher } from './subagentLauncher';
import { ISubagentLineage, MAIN_AGENT_LINEAGE } from './lineage';
import { SubagentRunnerService } from './subagentRunnerService';

/**
 * Subagents: the App's runner slot (ISubagentRunnerService), each agent's subagent service and the
 * Agent tool, active while a runner is bound.
 */
export function createAgentFeature() {
  return new Feature('agent')
    .contributeConfig(agentConfig)
    .bindApp(
      ({ bind }) => {
        bind(ISubagentRunnerService).to(SubagentRunnerService).inSingletonScope();
        // What a toolhost worker runs queued children with (scale.jobs.subagents "queue").
        bind(ISubagentJobHost).to(SubagentJobHost).inSingletonScope();
      },
      [ISubagentRunnerService, ISubagentJobHost],
    )
    .bindAgent(({ bind }) => {
      bind(ISubagentLineage).toConstantValue(MAIN_AGENT_LINEAGE);
      bind(AgentSubagentService).toSelf().inSingletonScope();
      bind(IAgentSubagentService).toService(AgentSubagentService);
      bind(ISubagentLauncher).to(SubagentLauncher).inSingletonScope();
    })
    // It follows the runner slot to recompute the active tools.
    .startWithAgent(AgentSubagentService)
    .contributeTool(agentTool);
}
