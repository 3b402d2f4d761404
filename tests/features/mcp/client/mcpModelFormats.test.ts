import { PROVIDER_TOOL_NAME_PATTERN, providerToolListProblems, toAnthropicTools, toOpenAiTools } from '../../../../src/tool/modelToolFormats';
import { useAgent } from '../../../helpers/agentHarness';
import { openMcpClientHarness } from '../../../helpers/mcpClientHarness';
import { fixtureServer } from '../../../helpers/mcpFixtureServer';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-formats-' });
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

test('every MCP tool fits the OpenAI and Anthropic tool formats, long and odd names included', async () => {
  const longName = 'a_tool_name_that_is_far_too_long_for_any_model_api_to_accept_as_it_is_written';
  const h = fx.use(openMcpClientHarness({
    cwd: fx.dir,
    servers: {
      'my.very long server name!': fixtureServer({ extraTools: [longName, 'do.thing', 'über-tool'], oddTools: true }),
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    },
  }));
  await h.serverState('my.very long server name!', 'ready');
  await h.serverState('everything', 'ready');
  const tools = h.agent.modelTools().filter((t) => t.source === 'mcp');
  expect(tools.length).toBeGreaterThan(30);
  expect(tools.map((t) => t.name)).toEqual(
    expect.arrayContaining(['mcp__my_very_long_server_name__do_thing', 'mcp__my_very_long_server_name__ber-tool', 'mcp__everything__get-sum']),
  );
  const long = tools.find((t) => t.name.startsWith('mcp__my_very_long_server_name__a_tool'))!;
  expect(long.name).toHaveLength(64);
  expect(providerToolListProblems(tools)).toEqual([]);
  for (const tool of toOpenAiTools(tools)) {
    expect(tool.function.name).toMatch(PROVIDER_TOOL_NAME_PATTERN);
    expect(tool.function.parameters).toMatchObject({ type: 'object', properties: expect.any(Object) });
    expect(tool.function.parameters).not.toHaveProperty('$schema');
  }
  for (const tool of toAnthropicTools(tools)) {
    expect(tool.name).toMatch(PROVIDER_TOOL_NAME_PATTERN);
    expect(tool.input_schema).toMatchObject({ type: 'object' });
  }
});
