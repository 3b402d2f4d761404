import type { Event } from '../../../base/event';
import { createServiceId } from '../../../di/serviceId';
import type { ToolDisclosure } from '../../../tool/contract';
import type { McpServerStatus, McpToolCollision, McpToolDefinition, McpWarning } from './mcpConnections';

/** An MCP tool registered in an agent. */
export interface McpToolInfo {
  /** The name it is registered and called by: `qualifyMcpToolName(server, tool)`. */
  readonly qualifiedName: string;
  readonly server: string;
  /** The name the server knows it by. */
  readonly tool: string;
  readonly disclosure: ToolDisclosure;
  readonly definition: McpToolDefinition;
}

export interface McpToolsChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * The agent's MCP tools (Agent scope). It follows the App's IMcpConnectionManager through its
 * events and keeps this agent's registry in step: every `ready` server's tools are registered with
 * `source: 'mcp'`, owner `mcp:<server>`, `disclosure: 'deferred'` when the server is configured
 * `deferred: true`; tools the tool policy excludes are left out; tools of a server that is not
 * ready are removed. Servers are resolved in name order and each server's tools in its list order,
 * so which of two colliding tools wins does not depend on which server connected first.
 */
export interface IAgentMcpService {
  /** Registered MCP tools, sorted by qualified name. */
  readonly tools: readonly McpToolInfo[];
  lookup(qualifiedName: string): McpToolInfo | undefined;
  /** Tools that are not registered because their name is taken, as of now. */
  readonly collisions: readonly McpToolCollision[];
  /** The App's servers (sorted by name). */
  readonly servers: readonly McpServerStatus[];
  /** Server warnings (from the App's manager) and this agent's name collisions. */
  readonly onWarning: Event<McpWarning>;
  /** After this agent's MCP registrations changed (names added and removed). */
  readonly onDidChangeTools: Event<McpToolsChange>;
  /** Resolves when no server is still starting, or the signal aborts. */
  whenSettled(signal?: AbortSignal): Promise<void>;
}
export const IAgentMcpService = createServiceId<IAgentMcpService>('AgentMcpService');
