import type { ContentPart, ToolResult } from '../../tool/contract';

export const EMPTY_OUTPUT = 'Tool output is empty.';

/** More parts than any real result has; the bound keeps a hostile array-like from looping forever. */
const MAX_CONTENT_PARTS = 10_000;

/** A copy of a well-formed content part (each field read once), or undefined. */
function copyContentPart(value: unknown): ContentPart | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const part = value as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  const type = part.type;
  if (type === 'text') {
    const text = part.text;
    return typeof text === 'string' ? { type, text } : undefined;
  }
  if (type === 'image' || type === 'audio') {
    const data = part.data;
    const mimeType = part.mimeType;
    return typeof data === 'string' && typeof mimeType === 'string' ? { type, data, mimeType } : undefined;
  }
  return undefined;
}

/**
 * Checks what a tool returned and makes it a well-formed result: a malformed value becomes an
 * error that says what was wrong, empty output says so, text-only part lists become one string,
 * and media without text gets a line of text.
 */
export function normalizeToolResult(toolName: string, value: unknown): ToolResult {
  try {
    return normalize(toolName, value);
  } catch {
    // A getter or Proxy trap of the value threw: nothing of it can be trusted.
    return { output: `Tool "${toolName}" returned a result that could not be read.`, isError: true };
  }
}

function normalize(toolName: string, value: unknown): ToolResult {
  if (value === null || value === undefined) return { output: `Tool "${toolName}" returned no result.`, isError: true };
  if (typeof value !== 'object') return { output: `Tool "${toolName}" returned a ${typeof value} instead of a tool result.`, isError: true };
  const raw = value as Partial<ToolResult> & Record<string, unknown>;
  const output = raw.output;
  const flags: Omit<ToolResult, 'output'> = {
    ...(raw.isError === true ? { isError: true } : {}),
    ...(raw.truncated === true ? { truncated: true } : {}),
    ...(raw.spillExempt === true ? { spillExempt: true } : {}),
    ...(typeof raw.outputPath === 'string' && raw.outputPath !== '' ? { outputPath: raw.outputPath } : {}),
    ...(raw.stopTurn === true ? { stopTurn: true } : {}),
    ...(raw.structuredContent !== undefined ? { structuredContent: raw.structuredContent } : {}),
    ...(typeof raw.metadata === 'object' && raw.metadata !== null && !Array.isArray(raw.metadata) ? { metadata: raw.metadata } : {}),
  };
  if (typeof output === 'string') return { ...flags, output: output === '' ? EMPTY_OUTPUT : output };
  const malformed: ToolResult = { output: `Tool "${toolName}" returned a result with a missing or malformed "output" field.`, isError: true };
  if (!Array.isArray(output)) return malformed;
  const length: unknown = output.length;
  if (typeof length !== 'number' || length > MAX_CONTENT_PARTS) {
    return { output: `Tool "${toolName}" returned more than ${MAX_CONTENT_PARTS} content parts.`, isError: true };
  }
  const parts: ContentPart[] = [];
  for (let at = 0; at < length; at++) {
    const part = copyContentPart(output[at]);
    if (!part) return malformed;
    parts.push(part);
  }
  if (parts.length === 0) return { ...flags, output: EMPTY_OUTPUT };
  if (parts.every((p) => p.type === 'text')) {
    const text = parts.map((p) => (p as { text: string }).text).join('\n');
    return { ...flags, output: text === '' ? EMPTY_OUTPUT : text };
  }
  const hasText = parts.some((p) => p.type === 'text' && p.text.trim() !== '');
  return { ...flags, output: hasText ? parts : [{ type: 'text', text: 'Tool returned non-text content.' }, ...parts] };
}
