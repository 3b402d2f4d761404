import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { SamplingMessage, SamplingMessageContentBlock, Tool as McpTool, ToolResultContent } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../base/errors';
import type { JsonValue } from '../../../services/agentState/agentState';
import { providerSchema } from '../../../tool/modelToolFormats';
import type { ISubagentRunner, SubagentRunRequest, SubagentRunResult } from '../../../tools/agent/contract';
import { toMcpContent } from './mcpMapping';

/** Tokens a child's answer may take per model request (sampling requires a `maxTokens`). */
export const DEFAULT_SAMPLING_MAX_TOKENS = 8_192;
/** The client's model (and maybe a person reviewing the request) answers; the SDK's 60 s is too short. */
export const DEFAULT_SAMPLING_TIMEOUT_MS = 10 * 60 * 1000;

export interface McpSamplingRunnerOptions {
  readonly maxTokens?: number;
  /** One sampling request that has not answered after this long fails the subagent. */
  readonly timeoutMs?: number;
}

/** True when the client declared sampling with tools (MCP 2025-11-25), which this runner needs. */
export function clientSamplesWithTools(server: Server): boolean {
  return server.getClientCapabilities()?.sampling?.tools !== undefined;
}

function contentBlocks(content: SamplingMessage['content']): SamplingMessageContentBlock[] {
  return Array.isArray(content) ? content : [content];
}

function isConversation(value: JsonValue | undefined): value is JsonValue & { messages: SamplingMessage[] } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as { messages?: unknown }).messages);
}

/**
 * A subagent runner that asks the `toolhost mcp serve` client's own model, with MCP sampling
 * (`sampling/createMessage` with `tools`): the child's tools go out as MCP tools, each `tool_use`
 * the client's model answers with runs through the child's executor, and the results go back as
 * `tool_result` blocks, until the model ends its turn without tool calls or the profile's turn
 * limit. The client decides which model answers (a profile's `model` is sent as a hint).
 */
export class McpSamplingSubagentRunner implements ISubagentRunner {
  constructor(
    private readonly server: Server,
    private readonly options: McpSamplingRunnerOptions = {},
  ) {}

  async run(request: SubagentRunRequest): Promise<SubagentRunResult> {
    const { child, prompt, profile, signal, onEvent } = request;
    const messages: SamplingMessage[] = isConversation(request.resumeFrom) ? [...request.resumeFrom.messages] : [];
    messages.push({ role: 'user', content: { type: 'text', text: prompt } });
    let turns = 0;
    let lastText = '';
    const end = (result: Omit<SubagentRunResult, 'turns' | 'conversation'>): SubagentRunResult => ({ ...result, turns, conversation: { messages } as unknown as JsonValue });

    while (turns < profile.maxTurns) {
      if (signal.aborted) break;
      turns++;
      onEvent({ type: 'turn', turn: turns });
      const tools: McpTool[] = child.modelTools().map((tool) => ({ name: tool.name, description: tool.description, inputSchema: providerSchema(tool.parameters) as McpTool['inputSchema'] }));
      let answer: Awaited<ReturnType<Server['createMessage']>>;
      try {
        answer = await this.server.createMessage(
          {
            messages,
            maxTokens: this.options.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS,
            ...(profile.instructions ? { systemPrompt: profile.instructions } : {}),
            ...(profile.model ? { modelPreferences: { hints: [{ name: profile.model }] } } : {}),
            ...(tools.length > 0 ? { tools } : {}),
          },
          { signal, timeout: this.options.timeoutMs ?? DEFAULT_SAMPLING_TIMEOUT_MS },
        );
      } catch (error) {
        if (signal.aborted) break;
        return end({ status: 'failed', text: lastText, error: `The MCP client did not answer sampling/createMessage: ${errorMessage(error)}` });
      }
      const blocks = contentBlocks(answer.content);
      messages.push({ role: 'assistant', content: blocks });
      const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      if (text !== '') {
        lastText = text;
        onEvent({ type: 'text', text });
      }
      const uses = blocks.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
      if (uses.length > 0) {
        const results = await child.execute(
          uses.map((use) => ({ id: use.id, name: use.name, arguments: use.input })),
          { signal },
        );
        const content = results.map((result): ToolResultContent => ({ type: 'tool_result', toolUseId: result.toolCallId, content: toMcpContent(result.output), ...(result.isError ? { isError: true } : {}) }));
        messages.push({ role: 'user', content });
        continue;
      }
      if (answer.stopReason === 'maxTokens') {
        return end({ status: 'failed', text: lastText, error: `The client's model hit maxTokens (${this.options.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS}); the answer is cut off.` });
      }
      return end({ status: 'completed', text });
    }
    if (signal.aborted) return end({ status: 'aborted', text: lastText, error: 'The subagent was aborted.' });
    return end({ status: 'failed', text: lastText, error: `The subagent used its ${profile.maxTurns} model turns without a final answer (the profile's maxTurns); resume it to let it go on.` });
  }
}
