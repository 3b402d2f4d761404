import { z } from 'zod';
import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';
import { mcpSdk } from '../sdk';
import { MAX_MCP_TOOL_DEPTH, MAX_MCP_TOOL_VALUES } from './mcpConnections';

/** A tools/list page with its tools unchecked: one bad tool must not fail the whole list (the SDK's listTools does). */
export const RawListToolsResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });


/** A listed entry checked against the MCP Tool schema, or why it cannot be used; `name` is its name when it has one. */
export type CheckedListedTool = { readonly ok: true; readonly tool: McpListedTool } | { readonly ok: false; readonly name: string | undefined; readonly reason: string };

/**
 * Checks one tools/list entry before anything recursive touches it: its size and depth first
 * (iteratively), then its input schema's type, then the rest of the MCP Tool schema. Reasons are
 * one clause, for a warning "MCP tool … was not registered: <reason>".
 */
export function checkListedTool(entry: unknown): CheckedListedTool {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { ok: false, name: undefined, reason: `the entry is ${kindOf(entry)}, not a tool object` };
  const record = entry as Record<string, unknown>;
  const name = typeof record.name === 'string' ? record.name : undefined;
  if (name === undefined) return { ok: false, name, reason: 'the entry has no "name" string' };
  const bound = exceedsBounds(entry);
  if (bound) return { ok: false, name, reason: bound };
  const schema = record.inputSchema;
  // A missing input schema is read as "no arguments" (servers omit it for argument-less tools).
  const withSchema = schema === undefined ? { ...record, inputSchema: { type: 'object' } } : record;
  if (schema !== undefined) {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, name, reason: `its inputSchema is ${kindOf(schema)}, not a JSON Schema object` };
    const type = (schema as Record<string, unknown>).type;
    if (type !== 'object') {
      return {
        ok: false,
        name,
        reason: `its input schema has "type": ${type === undefined ? 'nothing' : JSON.stringify(type)}, but MCP requires "type": "object" (the arguments are one JSON object)`,
      };
    }
  }
  const parsed = mcpSdk.types().ToolSchema.safeParse(withSchema);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `"${issue.path.join('.')}": ` : '';
    return { ok: false, name, reason: `it does not follow the MCP Tool schema (${where}${issue?.message ?? 'invalid'})` };
  }
  return { ok: true, tool: parsed.data };
}

/** Walks the value without recursion and stops at the first limit it passes. */
function exceedsBounds(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  let values = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++values > MAX_MCP_TOOL_VALUES) return `its definition has more than ${MAX_MCP_TOOL_VALUES.toLocaleString('en-US')} values (toolhost's limit for one tool)`;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_MCP_TOOL_DEPTH) return `its definition nests deeper than ${MAX_MCP_TOOL_DEPTH} levels (toolhost's limit for one tool)`;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
