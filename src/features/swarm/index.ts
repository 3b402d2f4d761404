// The swarm feature's public surface (`toolhost/features/swarm`): AgentSwarm and its limits.
export { createSwarmFeature } from './swarmFeature';
export { AgentSwarmTool, IAgentSwarmTool, agentSwarmTool } from './agentSwarmTool';
export { AGENT_SWARM_TOOL_NAME, createAgentSwarmInputSchema, type AgentSwarmInput, type AgentSwarmSchemaOptions } from './swarmSchema';
export { SwarmConfigSchema, swarmConfig, type SwarmConfig } from './swarmConfig';
