import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpAgentServer, type McpAgentServerOptions } from '../../src/features/mcp/serve/mcpAgentServer';
import { McpServeInteractions } from '../../src/features/mcp/serve/mcpServeInteractions';
import type { Agent } from '../../src/scopes/agentScope';
import { type App, createApp } from '../../src/scopes/appScope';
import { Feature } from '../../src/di/feature';
import type { AgentToolContribution } from '../../src/di/toolContribution';
import type { AppConfigInput } from '../../src/scopes/appScope';
import type { ISessionInteractionService } from '../../src/services/interaction/interaction';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';

export type ElicitationHandler = (request: ElicitRequest, extra: { signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;

export interface McpHarness {
  readonly app: App;
  readonly agent: Agent;
  readonly mcp: McpAgentServer;
  readonly client: Client;
  /** What the server logged (stderr in the CLI). */
  readonly logs: string[];
  /** One entry per notifications/tools/list_changed the client received. */
  readonly listChanged: number[];
  /** Elicitation requests the client received, in order. */
  readonly elicitations: ElicitRequest[];
  dispose(): Promise<void>;
}

/**
 * An agent served by McpAgentServer to an SDK Client over an in-memory transport: the library
 * API, with the tools a test needs. With `elicitation`, the client declares form elicitation and
 * answers approval requests with it.
 */
export async function openMcpHarness(options: {
  cwd: string;
  tools?: readonly AgentToolContribution[];
  builtins?: boolean;
  config?: AppConfigInput;
  approveAll?: boolean;
  elicitation?: ElicitationHandler;
  server?: McpAgentServerOptions;
  dataDir?: string;
  /** The App's environment (feature flags); default none set. */
  env?: Record<string, string>;
  modelCapabilities?: readonly string[];
  /** The library host's service for user tools and notifications. */
  delegate?: ISessionInteractionService;
}): Promise<McpHarness> {
  const features = [...(options.builtins ? builtinFeatures() : []), new Feature('test-tools')];
  for (const tool of options.tools ?? []) features[features.length - 1]!.contributeTool(tool);
  const app = createApp({ features, config: options.config, env: options.env ?? {} });
  const interactions = new McpServeInteractions({ approveAll: options.approveAll, delegate: options.delegate });
  const agent = app.createAgent({
    cwd: options.cwd,
    dataDir: options.dataDir,
    modelCapabilities: options.modelCapabilities ?? [],
    overrides: (container) => interactions.bindTo(container),
  });
  const logs: string[] = [];
  const mcp = new McpAgentServer(agent, { interactions, log: (m) => logs.push(m), listChangedDelayMs: 10, progressIntervalMs: 0, ...options.server });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} });
  const elicitations: ElicitRequest[] = [];
  if (options.elicitation) {
    const answer = options.elicitation;
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      elicitations.push(request);
      return answer(request, extra);
    });
  }
  const listChanged: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(listChanged.length + 1));
  await client.connect(clientTransport);
  return {
    app,
    agent,
    mcp,
    client,
    logs,
    listChanged,
    elicitations,
    dispose: async () => {
      await client.close();
      await mcp.close();
      await app.dispose();
    },
  };
}
