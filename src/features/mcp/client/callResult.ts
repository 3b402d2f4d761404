import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { formatCount } from '../../../base/strings';
import type { ContentPart, ToolResult } from '../../../tool/contract';

/** What `tools/call` may answer: a result, or the pre-2024-11-05 `{toolResult}` form. */
export type McpCallToolAnswer = CallToolResult | { readonly toolResult: unknown; readonly [key: string]: unknown };

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function describeMime(mimeType: string | undefined): string {
  return mimeType ? `, ${mimeType}` : '';
}

/** One MCP content block as tool output parts. */
export function mapMcpContentBlock(block: ContentBlock): ContentPart[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text }];
    case 'image':
      return [{ type: 'image', data: block.data, mimeType: block.mimeType }];
    case 'audio':
      return [{ type: 'audio', data: block.data, mimeType: block.mimeType }];
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        return [{ type: 'text', text: `[resource ${resource.uri}${describeMime(resource.mimeType)}]\n${resource.text}` }];
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      const mimeType = resource.mimeType ?? '';
      // Binary images and audio are passed on as media; other binary content is described.
      if (mimeType.startsWith('image/')) return [{ type: 'image', data: blob, mimeType }];
      if (mimeType.startsWith('audio/')) return [{ type: 'audio', data: blob, mimeType }];
      return [{ type: 'text', text: `[binary resource ${resource.uri}${describeMime(resource.mimeType)}, ${formatCount(base64Bytes(blob))} bytes, not shown]` }];
    }
    case 'resource_link': {
      const details = [block.mimeType, block.description].filter((d): d is string => typeof d === 'string' && d !== '');
      return [{ type: 'text', text: `[resource link ${block.name}: ${block.uri}${details.length ? ` (${details.join('; ')})` : ''}]` }];
    }
    default:
      return [{ type: 'text', text: `[unsupported MCP content of type "${String((block as { type?: unknown }).type)}"]` }];
  }
}

/**
 * Maps an MCP `tools/call` answer onto a tool result: text, images and audio as content parts,
 * embedded text resources as text, binary resources as media or a one-line description,
 * `structuredContent` as the result's structured content (and as JSON text when the server sent no
 * content), `isError` as an error result.
 */
export function mapMcpCallResult(answer: McpCallToolAnswer): ToolResult {
  if (!('content' in answer) && 'toolResult' in answer) {
    const value = answer.toolResult;
    return { output: typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? String(value) };
  }
  const result = answer as CallToolResult;
  const parts = (Array.isArray(result.content) ? result.content : []).flatMap(mapMcpContentBlock);
  const structured = result.structuredContent;
  if (parts.length === 0 && structured !== undefined) parts.push({ type: 'text', text: JSON.stringify(structured, null, 2) });
  if (parts.length === 0 && result.isError === true) parts.push({ type: 'text', text: 'The MCP tool reported an error without a message.' });
  return {
    output: parts,
    ...(result.isError === true ? { isError: true } : {}),
    ...(structured !== undefined ? { structuredContent: structured } : {}),
  };
}
