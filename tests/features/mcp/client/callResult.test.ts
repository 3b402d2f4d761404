import { type McpCallToolAnswer, mapMcpCallResult } from '../../../../src/features/mcp/client/callResult';
import type { ToolResult } from '../../../../src/tool/contract';

const PNG = 'iVBORw0KGgo=';

describe('mapMcpCallResult', () => {
  test.each<[string, McpCallToolAnswer, ToolResult]>([
    ['text', { content: [{ type: 'text', text: 'hello' }] }, { output: [{ type: 'text', text: 'hello' }] }],
    [
      'text and an image',
      { content: [{ type: 'text', text: 'look' }, { type: 'image', data: PNG, mimeType: 'image/png' }] },
      { output: [{ type: 'text', text: 'look' }, { type: 'image', data: PNG, mimeType: 'image/png' }] },
    ],
    ['audio', { content: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }] }, { output: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }] }],
    [
      'an embedded text resource',
      { content: [{ type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' } }] },
      { output: [{ type: 'text', text: '[resource file:///a.txt, text/plain]\nbody' }] },
    ],
    [
      'an embedded text resource without a MIME type',
      { content: [{ type: 'resource', resource: { uri: 'mem://x', text: 'body' } }] },
      { output: [{ type: 'text', text: '[resource mem://x]\nbody' }] },
    ],
    [
      'an embedded binary resource',
      { content: [{ type: 'resource', resource: { uri: 'file:///d.bin', mimeType: 'application/octet-stream', blob: 'YWJjZA==' } }] },
      { output: [{ type: 'text', text: '[binary resource file:///d.bin, application/octet-stream, 4 bytes, not shown]' }] },
    ],
    [
      'an embedded image resource becomes an image',
      { content: [{ type: 'resource', resource: { uri: 'file:///p.png', mimeType: 'image/png', blob: PNG } }] },
      { output: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
    ],
    [
      'a resource link',
      { content: [{ type: 'resource_link', uri: 'file:///o.md', name: 'o.md', mimeType: 'text/markdown', description: 'Other' }] },
      { output: [{ type: 'text', text: '[resource link o.md: file:///o.md (text/markdown; Other)]' }] },
    ],
    ['isError', { isError: true, content: [{ type: 'text', text: 'nope' }] }, { output: [{ type: 'text', text: 'nope' }], isError: true }],
    ['isError without content', { isError: true, content: [] }, { output: [{ type: 'text', text: 'The MCP tool reported an error without a message.' }], isError: true }],
    [
      'structured content next to text',
      { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
      { output: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
    ],
    [
      'structured content without text becomes JSON text too',
      { content: [], structuredContent: { ok: true } },
      { output: [{ type: 'text', text: '{\n  "ok": true\n}' }], structuredContent: { ok: true } },
    ],
    ['no content at all', { content: [] }, { output: [] }],
    ['the legacy toolResult form', { toolResult: { a: 1 } }, { output: '{\n  "a": 1\n}' }],
    ['the legacy toolResult form with text', { toolResult: 'plain' }, { output: 'plain' }],
  ])('%s', (_name, answer, expected) => {
    expect(mapMcpCallResult(answer)).toEqual(expected);
  });
});
