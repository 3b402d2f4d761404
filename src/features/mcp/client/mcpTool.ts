import { mapMcpCallResult } from './callResult';
import type { McpTransportKind } from '../mcpConfig';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolExecutionContext, type ToolResult, toolError } from '../../../tool/contract';
import type { PlanModeMcpTool } from '../../plan/contract';
import { knownToolAnnotations } from '../toolAnnotations';
import { matchTextRule } from '../../../tool/ruleMatch';
import { type IMcpConnectionManager, McpCallError, type McpToolDefinition } from './mcpConnections';

export type McpToolInput = Readonly<Record<string, unknown>>;

function abortError(message: string): Error {
  const error = new Error(message);
  error.name = 'AbortError';
  return error;
}

/**
 * An MCP server's tool as an agent tool: registered under its qualified name, called on the server
 * under its original name through the App's connection. Accesses: `all`, unless the server
 * annotates it `readOnlyHint: true`; then `process` (stdio) or `network` (HTTP), which conflict
 * with no other access but `all`, and are not read-only for approval: MCP calls ask unless a rule
 * allows them (an annotation is the server's claim, not a guarantee). Plan mode reads `planMode`
 * (the server's config) and `annotations.readOnlyHint`.
 */
export class McpTool implements ExecutableTool<McpToolInput>, PlanModeMcpTool {
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly annotations: ToolAnnotations | undefined;

  constructor(
    readonly name: string,
    readonly server: string,
    readonly definition: McpToolDefinition,
    private readonly transport: McpTransportKind,
    private readonly connections: IMcpConnectionManager,
    readonly planMode: 'guard' | 'allow' = 'guard',
  ) {
    this.description = definition.description;
    this.parameters = definition.inputSchema;
    this.annotations = knownToolAnnotations(definition.annotations);
  }

  resolveExecution(input: McpToolInput): ToolExecution {
    const args: McpToolInput = typeof input === 'object' && input !== null ? input : {};
    const label = `${this.definition.name} on MCP server "${this.server}"`;
    return {
      accesses: this.definition.readOnly ? [this.transport === 'stdio' ? ToolAccesses.process() : ToolAccesses.network()] : ToolAccesses.all(),
      approvalRule: this.name,
      // `mcp__s__t(<glob>)` matches the call's arguments as compact JSON.
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, JSON.stringify(args)),
      display: { kind: 'generic', summary: label, detail: args },
      description: `Calling ${label}`,
      execute: (ctx) => this.call(args, ctx),
    };
  }

  private async call(args: McpToolInput, ctx: ToolExecutionContext): Promise<ToolResult> {
    try {
      const answer = await this.connections.callTool(this.server, this.definition.name, args, {
        signal: ctx.signal,
        onProgress: (p) =>
          ctx.onUpdate({
            kind: 'progress',
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(p.message !== undefined ? { text: p.message } : {}),
          }),
      });
      return mapMcpCallResult(answer);
    } catch (error) {
      if (error instanceof McpCallError) {
        if (error.kind === 'aborted') throw abortError(error.message);
        return toolError(error.message);
      }
      throw error;
    }
  }
}
