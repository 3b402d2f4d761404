import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { fixtureServer } from '../../../helpers/mcpFixtureServer';
import { openMcpServeHarness } from '../../../helpers/mcpServeHarness';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-proxy-' });

test('toolhost mcp serve also serves the tools of its own MCP servers, announced when they become ready', async () => {
  const gate = nodePath.join(fx.dir, 'release');
  const h = fx.use(await openMcpServeHarness({ cwd: fx.dir, builtins: true, approveAll: true, config: { mcpServers: { fx: fixtureServer({ waitForFile: gate }) } } }));
  const before = (await h.client.listTools()).tools.map((t) => t.name);
  expect(before).toContain('Read');
  expect(before.filter((name) => name.startsWith('mcp__'))).toEqual([]);
  const announced = h.listChanged.length;
  fs.writeFileSync(gate, '');
  await waitFor(() => h.agent.registry.has('mcp__fx__add'), { what: 'the MCP tools in the agent' });
  // The change is announced to the client (debounced), and the list it then reads has the tools.
  await waitFor(() => h.listChanged.length > announced, { what: 'notifications/tools/list_changed' });
  const after = (await h.client.listTools()).tools.map((t) => t.name);
  expect(after).toEqual(expect.arrayContaining(['Read', 'mcp__fx__echo', 'mcp__fx__add']));
  const result = await h.client.callTool({ name: 'mcp__fx__add', arguments: { a: 2, b: 5 } });
  expect(result).toMatchObject({ content: [{ type: 'text', text: '{"sum":7}' }], structuredContent: { sum: 7 } });
});
