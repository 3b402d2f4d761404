import { MCP_TOOL_PREFIX } from '../../../tool/contract';

/** The longest name model APIs accept for a tool (OpenAI and Anthropic both cap it at 64). */
export const MAX_QUALIFIED_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * One part of a qualified MCP name: every character outside `[A-Za-z0-9_-]` becomes `_`, runs of
 * `_` collapse to one, and leading and trailing `_` are trimmed. The result never starts or ends
 * with `_` and never contains `__`, so `mcp__<server>__<tool>` splits back unambiguously.
 */
export function sanitizeMcpNamePart(part: string): string {
  return part
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** The unsigned 32-bit FNV-1a hash of the UTF-8 bytes of `text`, as 8 lowercase hex digits. */
export function fnv1a32Hex(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(HASH_LENGTH, '0');
}

/**
 * The name an MCP tool is registered and called by (DESIGN §7): `mcp__<server>__<tool>` with both
 * parts sanitised. A name over 64 characters becomes its first 55 characters, `_`, and the 8 hex
 * digits of the unsigned FNV-1a hash of the whole untruncated name: exactly 64 characters.
 */
export function qualifyMcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeMcpNamePart(server)}__${sanitizeMcpNamePart(tool)}`;
  if (full.length <= MAX_QUALIFIED_TOOL_NAME_LENGTH) return full;
  return `${full.slice(0, MAX_QUALIFIED_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${fnv1a32Hex(full)}`;
}

/** The `mcp__<server>__` prefix every tool of a server has (before any truncation). */
export function mcpServerToolPrefix(server: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeMcpNamePart(server)}__`;
}
