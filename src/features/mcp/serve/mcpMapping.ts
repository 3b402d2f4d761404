import type { CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations as McpToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { McpProgress } from '../client/mcpConnections';
import { knownToolAnnotations } from '../toolAnnotations';
import type { ToolCallResult } from '../../../services/executor/toolExecutor';
import type { JsonSchema, Tool, ToolOutput, ToolUpdate } from '../../../tool/contract';

/** `_meta` keys toolhost adds to a `tools/call` result. */
export const MCP_META_OUTCOME = 'toolhost/outcome';
export const MCP_META_OUTPUT_PATH = 'toolhost/outputPath';
/** The tool's result metadata (e.g. `untrusted: true`), when it gave some. */
export const MCP_META_RESULT = 'toolhost/metadata';

export type McpInputSchema = McpTool['inputSchema'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool's JSON Schema as an MCP `inputSchema`: the root is `type: "object"` (added when the
 * schema leaves the type open), `$schema` is dropped (MCP clients and model APIs do not want it),
 * and boolean property schemas become their object forms. A schema whose root cannot be an object
 * yields `undefined`: such a tool cannot be called with named arguments, so it is not served.
 */
export function toMcpInputSchema(parameters: JsonSchema): McpInputSchema | undefined {
  const { $schema: _dialect, type, properties, required, ...rest } = parameters as Record<string, unknown>;
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) return undefined;
  const schema: Record<string, unknown> = { type: 'object', ...rest };
  if (properties !== undefined) {
    if (!isPlainObject(properties)) return undefined;
    const props: Record<string, object> = {};
    for (const [key, value] of Object.entries(properties)) {
      if (value === true) props[key] = {};
      else if (value === false) props[key] = { not: {} };
      else if (isPlainObject(value)) props[key] = value;
      else return undefined;
    }
    schema.properties = props;
  }
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) return undefined;
    schema.required = required;
  }
  return schema as McpInputSchema;
}

/** A tool as `tools/list` shows it, or `undefined` when its schema cannot be served (see toMcpInputSchema). */
export function toMcpTool(tool: Tool): McpTool | undefined {
  const inputSchema = toMcpInputSchema(tool.parameters);
  if (!inputSchema) return undefined;
  const annotations: McpToolAnnotations | undefined = knownToolAnnotations(tool.annotations);
  return { name: tool.name, description: tool.description, inputSchema, ...(annotations ? { annotations } : {}) };
}

export function toMcpContent(output: ToolOutput): ContentBlock[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  return output.map((part): ContentBlock => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    return { type: part.type, data: part.data, mimeType: part.mimeType };
  });
}

/**
 * An executor result as an MCP `CallToolResult`. Every outcome is a result, never a protocol
 * error (as the SDK's own McpServer does it): a denial, an unknown tool or invalid arguments come
 * back as `isError: true` with the executor's text, which tells the model what to do next. The
 * outcome and the spill file, if any, are in `_meta`.
 */
export function toCallToolResult(result: ToolCallResult): CallToolResult {
  const meta: Record<string, unknown> = { [MCP_META_OUTCOME]: result.outcome };
  if (result.outputPath !== undefined) meta[MCP_META_OUTPUT_PATH] = result.outputPath;
  if (result.metadata !== undefined) meta[MCP_META_RESULT] = result.metadata;
  return {
    content: toMcpContent(result.output),
    ...(result.isError ? { isError: true } : {}),
    // MCP structured content is a JSON object; anything else stays out rather than break the result.
    ...(isPlainObject(result.structuredContent) ? { structuredContent: result.structuredContent } : {}),
    _meta: meta,
  };
}

const PROGRESS_MESSAGE_MAX_CHARS = 200;

function progressMessage(update: ToolUpdate): string | undefined {
  const text = update.text?.trim();
  if (!text) return undefined;
  // The last line is the freshest news of a stream (stdout, stderr).
  const lines = text.split(/\r?\n|\r/);
  const line = lines[lines.length - 1]!.trim();
  return line.length > PROGRESS_MESSAGE_MAX_CHARS ? line.slice(0, PROGRESS_MESSAGE_MAX_CHARS - 1) + '…' : line;
}

/**
 * Turns a tool's updates into MCP progress values, which must increase with every notification.
 * A numeric update (`progress`, optional `total`) is used as it is when it moves forward; a text
 * update (stdout, stderr, status) counts one step. Updates that cannot move the value forward
 * (a numeric value that went back, a step past a known total) yield `undefined` and are not sent.
 */
export class ProgressMapper {
  private last = 0;
  private sent = false;
  private total: number | undefined;

  next(update: ToolUpdate): McpProgress | undefined {
    const message = progressMessage(update);
    let value: number;
    if (typeof update.progress === 'number' && Number.isFinite(update.progress)) {
      if (typeof update.total === 'number' && Number.isFinite(update.total) && update.total > 0) this.total = update.total;
      value = update.progress;
    } else {
      if (message === undefined) return undefined;
      value = this.last + 1;
    }
    // The first value may be 0 ("starting"); every later one must be larger.
    if (this.sent ? value <= this.last : value < 0) return undefined;
    if (this.total !== undefined && value > this.total) return undefined;
    this.last = value;
    this.sent = true;
    return { progress: value, ...(this.total !== undefined ? { total: this.total } : {}), ...(message !== undefined ? { message } : {}) };
  }
}
