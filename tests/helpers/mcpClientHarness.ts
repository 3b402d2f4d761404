import type { McpServerConfigInput } from '../../src/features/mcp/mcpConfig';
import { IAgentMcpService } from '../../src/features/mcp/client/agentMcp';
import { IMcpClientOptions, IMcpConnectionManager, type McpServerState, type McpWarning } from '../../src/features/mcp/client/mcpConnections';
import { McpConnectionManager } from '../../src/features/mcp/client/mcpConnectionManager';
import { createMcpFeature } from '../../src/features/mcp/mcpFeature';
import type { ToolOutput } from '../../src/tool/contract';
import { type Harness, type HarnessOptions, openHarness } from './agentHarness';
import { waitFor } from './async';

export interface McpClientHarness extends Harness {
  readonly manager: McpConnectionManager;
  readonly warnings: McpWarning[];
  /** Waits until the server reaches the state. */
  serverState(name: string, state: McpServerState): Promise<void>;
}

/**
 * openHarness with only the MCP feature and the given `mcpServers`; MCP calls are allowed by an
 * approval rule (config `approval` replaces it).
 */
export function openMcpClientHarness(
  options: Omit<HarnessOptions, 'features' | 'builtins' | 'tools'> & {
    servers: Record<string, McpServerConfigInput>;
    /** Where stdio servers start (default: the process's working directory). */
    workingDirectory?: string;
  },
): McpClientHarness {
  const { servers, workingDirectory, config, appOverrides, ...rest } = options;
  const h = openHarness({
    ...rest,
    features: [createMcpFeature()],
    config: { approval: { allow: ['mcp__*'] }, ...config, mcpServers: servers },
    appOverrides: (container) => {
      if (workingDirectory) container.rebind(IMcpClientOptions).toConstantValue({ workingDirectory });
      appOverrides?.(container);
    },
  });
  const warnings: McpWarning[] = [];
  h.agent.get(IAgentMcpService).onWarning((w) => warnings.push(w));
  const manager = h.app.get(IMcpConnectionManager) as McpConnectionManager;
  return {
    ...h,
    manager,
    warnings,
    serverState: async (name, state) => {
      await waitFor(() => manager.server(name)?.state === state, {
        what: `server ${name} to be ${state} (it is ${manager.server(name)?.state}: ${manager.server(name)?.error ?? ''})`,
      });
    },
  };
}

export function textOf(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output.map((p) => (p.type === 'text' ? p.text : `[${p.type} ${p.mimeType}]`)).join('\n');
}

/** Names of the registered MCP tools, in registry order; only those of `server` when given. */
export function mcpToolNames(h: Harness, server?: string): string[] {
  return h.agent.registry
    .list()
    .filter((r) => (server === undefined ? r.source === 'mcp' : r.owner === `mcp:${server}`))
    .map((r) => r.tool.name);
}
