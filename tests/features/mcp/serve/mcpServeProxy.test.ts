import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { openMcpHarness } from '../../../helpers/mcpHarness';
import { fixtureServer, waitFor } from '../../../helpers/mcp';
import { useTempDir } from '../../../helpers/tempDir';

jest.setTimeout(60_000);

const dir = useTempDir('toolhost-mcp-proxy-');

test('toolhost mcp serve also serves the tools of its own MCP servers, announced when they become ready', async () => {
  const gate = nodePath.join(dir.path, 'release');
  const h = await openMcpHarness({ cwd: dir.path, builtins: true, approveAll: true, config: { mcpServers: { fx: fixtureServer({ waitForFile: gate }) } } });
  try {
    const before = (await h.client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('Read');
    expect(before.filter((name) => name.startsWith('mcp__'))).toEqual([]);
    const announced = h.listChanged.length;
    fs.writeFileSync(gate, '');
    await waitFor(() => h.agent.registry.has('mcp__fx__add'), 'the MCP tools in the agent');
    // The change is announced to the client (debounced), and the list it then reads has the tools.
    await waitFor(() => h.listChanged.length > announced, 'notifications/tools/list_changed');
    const after = (await h.client.listTools()).tools.map((t) => t.name);
    expect(after).toEqual(expect.arrayContaining(['Read', 'mcp__fx__echo', 'mcp__fx__add']));
    const result = await h.client.callTool({ name: 'mcp__fx__add', arguments: { a: 2, b: 5 } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '{"sum":7}' }], structuredContent: { sum: 7 } });
  } finally {
    await h.dispose();
  }
});
