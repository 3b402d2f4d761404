import * as nodePath from 'node:path';
import type { McpServerConfigInput } from '../../src/features/mcp/mcpConfig';
import type { Agent } from '../../src/scopes/agentScope';
import { type App, createApp } from '../../src/scopes/appScope';
import type { AppConfigInput } from '../../src/scopes/appScope';
import type { ToolCallResult } from '../../src/services/executor/toolExecutor';
import { IAgentMcpService } from '../../src/features/mcp/client/agentMcp';
import { IMcpClientOptions, IMcpConnectionManager, type McpServerState, type McpWarning } from '../../src/features/mcp/client/mcpConnections';
import { McpConnectionManager } from '../../src/features/mcp/client/mcpConnectionManager';
import { createMcpFeature } from '../../src/features/mcp/mcpFeature';
import type { ToolOutput } from '../../src/tool/contract';

export const FIXTURE_SERVER = nodePath.resolve(__dirname, '../fixtures/mcp/fixtureServer.cjs');

/** Options of tests/fixtures/mcp/fixtureServer.cjs. */
export interface FixtureOptions {
  readonly name?: string;
  readonly startDelayMs?: number;
  readonly waitForFile?: string;
  readonly exitAtStart?: number;
  readonly exitAfterMs?: number;
  readonly manyTools?: number;
  readonly onlyMany?: boolean;
  readonly extraTools?: readonly string[];
  readonly oddTools?: boolean;
  readonly http?: boolean;
  readonly requireToken?: string;
}

/** A stdio `mcpServers` entry that runs the fixture server with node. */
export function fixtureServer(options: FixtureOptions = {}, extra: Partial<McpServerConfigInput> = {}): McpServerConfigInput {
  return { command: process.execPath, args: [FIXTURE_SERVER, JSON.stringify(options)], ...extra } as McpServerConfigInput;
}

/** Polls until `check` returns a value (not undefined/false); generous for loaded machines. */
export async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface McpClientHarness {
  readonly app: App;
  readonly agent: Agent;
  readonly manager: McpConnectionManager;
  readonly warnings: McpWarning[];
  /** Waits until the server reaches the state. */
  serverState(name: string, state: McpServerState): Promise<void>;
  call(name: string, args: unknown, options?: { signal?: AbortSignal; id?: string }): Promise<ToolCallResult>;
  dispose(): Promise<void>;
}

/** An App with only the MCP feature and one agent; MCP calls are allowed by an approval rule. */
export function openMcpClientHarness(options: {
  cwd: string;
  servers: Record<string, McpServerConfigInput>;
  config?: AppConfigInput;
  /** Where stdio servers start (default: the process's working directory). */
  workingDirectory?: string;
}): McpClientHarness {
  const app = createApp({
    features: [createMcpFeature()],
    config: { approval: { allow: ['mcp__*'] }, ...options.config, mcpServers: options.servers },
    overrides: (container) => {
      if (options.workingDirectory) container.rebind(IMcpClientOptions).toConstantValue({ workingDirectory: options.workingDirectory });
    },
  });
  const agent = app.createAgent({ cwd: options.cwd });
  const warnings: McpWarning[] = [];
  agent.get(IAgentMcpService).onWarning((w) => warnings.push(w));
  const manager = app.get(IMcpConnectionManager) as McpConnectionManager;
  let counter = 0;
  return {
    app,
    agent,
    manager,
    warnings,
    serverState: async (name, state) => {
      await waitFor(() => manager.server(name)?.state === state, `server ${name} to be ${state} (it is ${manager.server(name)?.state}: ${manager.server(name)?.error ?? ''})`);
    },
    call: async (name, args, callOptions = {}) => {
      const id = callOptions.id ?? `call_${++counter}`;
      const [result] = await agent.executor.execute([{ id, name, arguments: JSON.stringify(args) }], { signal: callOptions.signal });
      return result!;
    },
    dispose: () => app.dispose(),
  };
}

export function textOf(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output.map((p) => (p.type === 'text' ? p.text : `[${p.type} ${p.mimeType}]`)).join('\n');
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
