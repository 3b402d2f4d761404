import { isMcpToolName, MCP_TOOL_PREFIX } from '../tool/contract';

export type InactiveToolPatternReason = 'wildcard-not-mcp' | 'incomplete-mcp-name' | 'unknown-tool';

export interface InactiveToolPattern {
  readonly pattern: string;
  readonly reason: InactiveToolPatternReason;
}

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Patterns in a tool policy that can never match anything, with the reason, so config and
 * profile mistakes are reported instead of silently doing nothing:
 * - `wildcard-not-mcp`: a glob on a non-MCP name (`Read*`, `*`); builtin names are written whole;
 * - `incomplete-mcp-name`: `mcp__server` without a tool part or a glob;
 * - `unknown-tool`: a literal non-MCP name that `isKnown` rejects (skipped without `isKnown`).
 */
export function findInactiveToolPatterns(
  patterns: readonly string[],
  isKnown?: (name: string) => boolean,
): InactiveToolPattern[] {
  const found: InactiveToolPattern[] = [];
  for (const pattern of patterns) {
    if (isMcpToolName(pattern)) {
      const rest = pattern.slice(MCP_TOOL_PREFIX.length);
      if (!GLOB_CHARS.test(pattern) && !rest.includes('__')) found.push({ pattern, reason: 'incomplete-mcp-name' });
      continue;
    }
    if (GLOB_CHARS.test(pattern)) {
      found.push({ pattern, reason: 'wildcard-not-mcp' });
      continue;
    }
    if (isKnown && !isKnown(pattern)) found.push({ pattern, reason: 'unknown-tool' });
  }
  return found;
}

export function describeInactiveToolPattern({ pattern, reason }: InactiveToolPattern): string {
  switch (reason) {
    case 'wildcard-not-mcp':
      return `"${pattern}" uses a wildcard, but wildcards only match MCP tools (mcp__server__*); write builtin tool names whole.`;
    case 'incomplete-mcp-name':
      return `"${pattern}" names an MCP server but no tool; use "${pattern}__<tool>" or "${pattern}__*".`;
    case 'unknown-tool':
      return `"${pattern}" is not a known tool name.`;
  }
}
