import type { ContentPart, ToolResult } from '../../tool/contract';

export const EMPTY_OUTPUT = 'Tool output is empty.';

function isContentPart(value: unknown): value is ContentPart {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  if (part.type === 'text') return typeof part.text === 'string';
  if (part.type === 'image' || part.type === 'audio') return typeof part.data === 'string' && typeof part.mimeType === 'string';
  return false;
}

/**
 * Checks what a tool returned and makes it a well-formed result: a malformed value becomes an
 * error that says what was wrong, empty output says so, text-only part lists become one string,
 * and media without text gets a line of text.
 */
export function normalizeToolResult(toolName: string, value: unknown): ToolResult {
  if (value === null || value === undefined) return { output: `Tool "${toolName}" returned no result.`, isError: true };
  if (typeof value !== 'object') return { output: `Tool "${toolName}" returned a ${typeof value} instead of a tool result.`, isError: true };
  const raw = value as Partial<ToolResult> & Record<string, unknown>;
  const output = raw.output;
  const flags: Omit<ToolResult, 'output'> = {
    ...(raw.isError === true ? { isError: true } : {}),
    ...(raw.truncated === true ? { truncated: true } : {}),
    ...(raw.spillExempt === true ? { spillExempt: true } : {}),
    ...(raw.stopTurn === true ? { stopTurn: true } : {}),
    ...(raw.structuredContent !== undefined ? { structuredContent: raw.structuredContent } : {}),
  };
  if (typeof output === 'string') return { ...flags, output: output === '' ? EMPTY_OUTPUT : output };
  if (!Array.isArray(output) || !output.every(isContentPart)) {
    return { output: `Tool "${toolName}" returned a result with a missing or malformed "output" field.`, isError: true };
  }
  const parts = output as ContentPart[];
  if (parts.length === 0) return { ...flags, output: EMPTY_OUTPUT };
  if (parts.every((p) => p.type === 'text')) {
    const text = parts.map((p) => (p as { text: string }).text).join('\n');
    return { ...flags, output: text === '' ? EMPTY_OUTPUT : text };
  }
  const hasText = parts.some((p) => p.type === 'text' && p.text.trim() !== '');
  return { ...flags, output: hasText ? parts : [{ type: 'text', text: 'Tool returned non-text content.' }, ...parts] };
}
