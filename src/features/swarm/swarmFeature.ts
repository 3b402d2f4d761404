import { Feature } from '../../di/feature';
import { agentSwarmTool } from './agentSwarmTool';
import { swarmConfig } from './swarmConfig';

/**
 * AgentSwarm: one subagent per item of a list, a few at a time, through the agent feature's
 * subagent service (IAgentSubagentService); active while a subagent runner is bound.
 */
export function createSwarmFeature(): Feature {
  return new Feature('swarm', { requires: ['agent'] }).contributeConfig(swarmConfig).contributeTool(agentSwarmTool);
}
