import { CallToolResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { ProgressMapper, toCallToolResult, toMcpInputSchema, toMcpTool } from '../../../../src/features/mcp/serve/mcpMapping';
import type { ToolCallResult } from '../../../../src/services/executor/toolExecutor';
import type { JsonSchema, ToolUpdate } from '../../../../src/tool/contract';
import { openHarness } from '../../../helpers/agentHarness';

describe('toMcpInputSchema', () => {
  test.each<[string, JsonSchema, JsonSchema | undefined]>([
    [
      'drops $schema and keeps everything else',
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
    ],
    ['adds type object to an open root', { properties: { a: {} } }, { type: 'object', properties: { a: {} } }],
    ['an empty schema becomes an empty object schema', {}, { type: 'object' }],
    ['a type list that allows object is object', { type: ['object', 'null'] }, { type: 'object' }],
    ['boolean property schemas become objects', { type: 'object', properties: { any: true, none: false } }, { type: 'object', properties: { any: {}, none: { not: {} } } }],
    ['keeps definitions and combinators', { type: 'object', definitions: { x: { type: 'number' } }, anyOf: [{ required: ['a'] }] }, { type: 'object', definitions: { x: { type: 'number' } }, anyOf: [{ required: ['a'] }] }],
    ['a string root cannot be served', { type: 'string' }, undefined],
    ['an array root cannot be served', { type: 'array', items: {} }, undefined],
    ['malformed properties cannot be served', { type: 'object', properties: ['a'] }, undefined],
    ['malformed required cannot be served', { type: 'object', required: [1] }, undefined],
  ])('%s', (_name, input, expected) => {
    const out = toMcpInputSchema(input);
    expect(out).toEqual(expected);
    if (out) expect(ToolSchema.shape.inputSchema.safeParse(out).success).toBe(true);
  });
});

describe('toMcpTool', () => {
  test('copies name and description, and only the known annotation hints', () => {
    const tool = toMcpTool({
      name: 'Look',
      description: 'Looks.',
      parameters: { type: 'object' },
      annotations: { title: 'Look around', readOnlyHint: true, openWorldHint: false },
    });
    expect(tool).toEqual({ name: 'Look', description: 'Looks.', inputSchema: { type: 'object' }, annotations: { title: 'Look around', readOnlyHint: true, openWorldHint: false } });
    expect(ToolSchema.safeParse(tool).success).toBe(true);
    expect(toMcpTool({ name: 'Plain', description: 'd', parameters: {}, annotations: {} })).toEqual({ name: 'Plain', description: 'd', inputSchema: { type: 'object' } });
  });
});

test('every builtin tool can be served: a valid MCP tool with an object schema and no $schema', async () => {
  const h = openHarness({ cwd: __dirname, builtins: true });
  const registrations = h.agent.registry.list();
  expect(registrations.length).toBeGreaterThan(0);
  for (const { tool } of registrations) {
    const served = toMcpTool(tool);
    expect([tool.name, served !== undefined]).toEqual([tool.name, true]);
    expect([tool.name, ToolSchema.safeParse(served).success]).toEqual([tool.name, true]);
    expect(served!.inputSchema).not.toHaveProperty('$schema');
  }
  await h.dispose();
});

describe('toCallToolResult', () => {
  const base: ToolCallResult = { toolCallId: 'c', name: 'T', output: 'ok', isError: false, outcome: 'executed', truncated: false, durationMs: 1 };
  test.each<[string, Partial<ToolCallResult>, object]>([
    ['text', {}, { content: [{ type: 'text', text: 'ok' }], _meta: { 'toolhost/outcome': 'executed' } }],
    ['an error', { output: 'no', isError: true, outcome: 'denied' }, { content: [{ type: 'text', text: 'no' }], isError: true, _meta: { 'toolhost/outcome': 'denied' } }],
    [
      'parts',
      { output: [{ type: 'text', text: 'see' }, { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] },
      {
        content: [
          { type: 'text', text: 'see' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
        _meta: { 'toolhost/outcome': 'executed' },
      },
    ],
    ['a spill file', { truncated: true, outputPath: '/d/x.txt' }, { content: [{ type: 'text', text: 'ok' }], _meta: { 'toolhost/outcome': 'executed', 'toolhost/outputPath': '/d/x.txt' } }],
    ['structured content', { structuredContent: { n: 1 } }, { content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 }, _meta: { 'toolhost/outcome': 'executed' } }],
    ['result metadata (untrusted content)', { metadata: { untrusted: true } }, { content: [{ type: 'text', text: 'ok' }], _meta: { 'toolhost/outcome': 'executed', 'toolhost/metadata': { untrusted: true } } }],
    ['structured content that is not an object is left out', { structuredContent: [1, 2] }, { content: [{ type: 'text', text: 'ok' }], _meta: { 'toolhost/outcome': 'executed' } }],
  ])('%s', (_name, patch, expected) => {
    const out = toCallToolResult({ ...base, ...patch });
    expect(out).toEqual(expected);
    expect(CallToolResultSchema.safeParse(out).success).toBe(true);
  });
});

describe('ProgressMapper', () => {
  test.each<[string, ToolUpdate[], Array<object | undefined>]>([
    [
      'numeric progress is passed through while it increases',
      [
        { kind: 'progress', progress: 0, total: 4 },
        { kind: 'progress', progress: 2, total: 4 },
        { kind: 'progress', progress: 2, total: 4 },
        { kind: 'progress', progress: 1 },
        { kind: 'progress', progress: 4 },
      ],
      [{ progress: 0, total: 4 }, { progress: 2, total: 4 }, undefined, undefined, { progress: 4, total: 4 }],
    ],
    [
      'text updates count steps and carry their last line, cut to 200 characters',
      [
        { kind: 'stdout', text: 'a\nb\n' },
        { kind: 'stderr', text: 'x'.repeat(300) },
        { kind: 'status', text: '   ' },
      ],
      [{ progress: 1, message: 'b' }, { progress: 2, message: 'x'.repeat(199) + '…' }, undefined],
    ],
    [
      'a text step past a known total is not sent',
      [
        { kind: 'progress', progress: 3, total: 3 },
        { kind: 'stdout', text: 'more' },
      ],
      [{ progress: 3, total: 3 }, undefined],
    ],
    ['a negative first value is not sent', [{ kind: 'progress', progress: -1 }], [undefined]],
  ])('%s', (_name, updates, expected) => {
    const mapper = new ProgressMapper();
    expect(updates.map((u) => mapper.next(u))).toEqual(expected);
  });
});
