import { IAgentMcpService } from '../../../../src/features/mcp/client/agentMcp';
import { checkListedTool } from '../../../../src/features/mcp/client/listedTools';
import { MAX_MCP_TOOL_DEPTH, MAX_MCP_TOOL_VALUES } from '../../../../src/features/mcp/client/mcpConnections';
import { useAgent } from '../../../helpers/agentHarness';
import { mcpToolNames, openMcpClientHarness } from '../../../helpers/mcpClientHarness';
import { fixtureServer } from '../../../helpers/mcpFixtureServer';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-' });

const notRegistered = (tool: string, reason: string) => ({
  code: 'invalid_tool',
  server: 'odd',
  tool,
  message: `MCP tool "${tool}" of server "odd" was not registered: ${reason}. The server's other tools work.`,
});

describe('listed tools no client can use as they are', () => {
  test('are left out, each with a one-line warning naming the server, the tool and why; the good tools work', async () => {
    // The fixture's tools/list carries, next to two good tools, a {type: "string"} input schema,
    // one nested 5,000 levels, one with 200,000 properties, and a tool without an input schema.
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { odd: fixtureServer({ onlyMany: true, manyTools: 2, badSchemas: true }) } }));
    await h.serverState('odd', 'ready');
    expect(h.warnings).toEqual([
      notRegistered('stringly', 'its input schema has "type": "string", but MCP requires "type": "object" (the arguments are one JSON object)'),
      notRegistered('deep', "its definition nests deeper than 128 levels (toolhost's limit for one tool)"),
      notRegistered('wide', "its definition has more than 20,000 values (toolhost's limit for one tool)"),
    ]);
    for (const warning of h.warnings) expect(warning.message).not.toContain('\n');
    expect(mcpToolNames(h)).toEqual(['mcp__odd__no_schema', 'mcp__odd__tool_0000', 'mcp__odd__tool_0001']);
    expect(h.agent.get(IAgentMcpService).servers.find((s) => s.name === 'odd')!.tools.map((t) => t.name)).toEqual(['tool_0000', 'tool_0001', 'no_schema']);
    expect(await h.call('mcp__odd__tool_0001', { query: 'q' })).toMatchObject({ output: '{"query":"q"}', outcome: 'executed' });
    expect(h.agent.registry.get('mcp__odd__no_schema')!.tool.parameters).toEqual({ type: 'object', properties: {} });
  });
});

describe('a server that lists without end', () => {
  test('gets at most 1,000 pages of tools/list asked, keeps what they listed, and one warning says so', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { endless: fixtureServer({ onlyMany: true, endlessPages: 3 }) } }));
    await h.serverState('endless', 'ready');
    expect(h.warnings).toEqual([
      {
        code: 'tools_truncated',
        server: 'endless',
        message: 'MCP server "endless" lists more tools than toolhost takes from one server (10,000, in at most 1,000 pages of tools/list): its first 3,000 are used and the rest left out.',
      },
    ]);
    const names = mcpToolNames(h);
    expect(names).toHaveLength(3000);
    expect(names).toContain('mcp__endless__page_999_2');
    expect(names).not.toContain('mcp__endless__page_1000_0');
  });
});

describe('checkListedTool', () => {
  const nested = (levels: number) => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { next: schema } };
    return schema;
  };

  test.each<[string, unknown, string]>([
    ['a non-object entry', 'echo', 'the entry is a string, not a tool object'],
    ['an entry without a name', { inputSchema: { type: 'object' } }, 'the entry has no "name" string'],
    ['an array input schema', { name: 't', inputSchema: [] }, 'its inputSchema is an array, not a JSON Schema object'],
    ['an input schema without a type', { name: 't', inputSchema: { properties: {} } }, 'its input schema has "type": nothing, but MCP requires "type": "object" (the arguments are one JSON object)'],
    ['a field of the wrong type', { name: 't', inputSchema: { type: 'object' }, description: 7 }, 'it does not follow the MCP Tool schema ("description": Invalid input: expected string, received number)'],
  ])('refuses %s with one clause', (_what, entry, reason) => {
    expect(checkListedTool(entry)).toEqual({ ok: false, name: typeof entry === 'object' && entry && 'name' in entry ? 't' : undefined, reason });
  });

  test('the depth and size limits are inclusive and checked before anything else', () => {
    // The tool object, inputSchema, then two levels (schema, properties) per nested object.
    const levels = (MAX_MCP_TOOL_DEPTH - 2) / 2;
    expect(checkListedTool({ name: 'ok', inputSchema: nested(levels) })).toMatchObject({ ok: true });
    expect(checkListedTool({ name: 'deep', inputSchema: nested(levels + 1) })).toMatchObject({ ok: false, reason: expect.stringContaining('nests deeper than') });
    // The tool, its name, inputSchema, type, properties: 5 values, then 2 per property.
    const properties = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string' }]));
    const fitting = Math.floor((MAX_MCP_TOOL_VALUES - 5) / 2);
    expect(checkListedTool({ name: 'ok', inputSchema: { type: 'object', properties: properties(fitting) } })).toMatchObject({ ok: true });
    expect(checkListedTool({ name: 'big', inputSchema: { type: 'object', properties: properties(fitting + 1) } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('more than 20,000 values'),
    });
  });
});
