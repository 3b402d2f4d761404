import { Feature } from '../../di/feature';
import { IAgentMcpService } from './client/agentMcp';
import { AgentMcpService } from './client/agentMcpService';
import { IMcpClientOptions, IMcpConnectionManager } from './client/mcpConnections';
import { McpConnectionManager } from './client/mcpConnectionManager';
import { mcpServersConfig } from './mcpConfig';

/**
 * MCP servers as a tool source: the App's connection manager (config `mcpServers`) and, in every
 * agent, the service that registers the ready servers' tools.
 */
export function createMcpFeature() {
  return new Feature('mcp')
    .contributeConfig(mcpServersConfig)
    .bindApp(
      ({ bind }) => {
        bind(IMcpClientOptions).toConstantValue({ workingDirectory: process.cwd() });
        bind(IMcpConnectionManager).to(McpConnectionManager).inSingletonScope();
      },
      [IMcpConnectionManager],
    )
    .bindAgent(({ bind }) => {
      bind(IAgentMcpService).to(AgentMcpService).inSingletonScope();
    })
    // It registers tools on its own.
    .startWithAgent(IAgentMcpService);
}
