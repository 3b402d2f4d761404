import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpAgentServer, type McpAgentServerOptions } from '../../src/features/mcp/serve/mcpAgentServer';
import { McpServeInteractions } from '../../src/features/mcp/serve/mcpServeInteractions';
import type { ISessionInteractionService } from '../../src/services/interaction/interaction';
import { type Harness, type HarnessOptions, openHarness } from './agentHarness';

export type ElicitationHandler = (request: ElicitRequest, extra: { signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;

export interface McpServeHarness extends Harness {
  readonly mcp: McpAgentServer;
  readonly client: Client;
  /** What the server logged (stderr in the CLI). */
  readonly logs: string[];
  /** One entry per notifications/tools/list_changed the client received. */
  readonly listChanged: number[];
  /** Elicitation requests the client received, in order. */
  readonly elicitations: ElicitRequest[];
}

/**
 * openHarness with the agent served by McpAgentServer to an SDK Client over an in-memory
 * transport: the library API, with the tools a test needs. With `elicitation`, the client
 * declares form elicitation and answers approval requests with it.
 */
export async function openMcpServeHarness(
  options: Omit<HarnessOptions, 'interactions'> & {
    approveAll?: boolean;
    elicitation?: ElicitationHandler;
    server?: McpAgentServerOptions;
    /** The library host's service for user tools and notifications. */
    delegate?: ISessionInteractionService;
  },
): Promise<McpServeHarness> {
  const { approveAll, elicitation, server, delegate, overrides, ...rest } = options;
  const interactions = new McpServeInteractions({ approveAll, delegate });
  const h = openHarness({
    ...rest,
    // No feature flags set and no model capabilities unless the test gives them.
    env: rest.env ?? {},
    modelCapabilities: rest.modelCapabilities ?? [],
    overrides: (container) => {
      interactions.bindTo(container);
      overrides?.(container);
    },
  });
  const { agent } = h;
  const logs: string[] = [];
  const mcp = new McpAgentServer(agent, { interactions, log: (m) => logs.push(m), listChangedDelayMs: 10, progressIntervalMs: 0, ...server });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: { form: {} } } : {} });
  const elicitations: ElicitRequest[] = [];
  if (elicitation) {
    const answer = elicitation;
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      elicitations.push(request);
      return answer(request, extra);
    });
  }
  const listChanged: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(listChanged.length + 1));
  await client.connect(clientTransport);
  return {
    ...h,
    mcp,
    client,
    logs,
    listChanged,
    elicitations,
    dispose: async () => {
      await client.close();
      await mcp.close();
      await h.dispose();
    },
  };
}

/** The text of an MCP tool result as a client sees it; other parts as `[type]`. */
export function callResultText(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}
