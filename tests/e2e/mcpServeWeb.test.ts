import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, cliEnv } from '../helpers/cliProcess';
import { waitFor } from '../helpers/async';
import { makeTempDir, removeDir } from '../helpers/tempDir';
import { type LocalServer, startServer } from '../tools/web/webFixtures';

// The web tools through the built CLI's `mcp serve` and the SDK client over stdio: both mark their
// results untrusted in `_meta`, and a search provider written into toolhost.json while the server
// runs activates WebSearch at once (tools/list_changed), with no restart.
let root: string;
let server: LocalServer;
let client: Client | undefined;

beforeEach(async () => {
  root = makeTempDir('toolhost-mcp-web-');
  server = await startServer();
  server.route('/page', (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>T</title></head><body><p>Hello from the page.</p></body></html>'));
  server.route('/missing', (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('not here'));
  // SearXNG's JSON shape (format=json).
  server.route('/search', (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [{ title: 'A result', url: 'https://a.example/', content: 'snippet' }] })),
  );
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.close();
  removeDir(root);
});

const UNTRUSTED_META = { 'toolhost/outcome': 'executed', 'toolhost/metadata': { untrusted: true } };

function writeConfig(config: object): void {
  fs.writeFileSync(nodePath.join(root, 'toolhost.json'), JSON.stringify(config));
}

test('FetchURL and WebSearch results carry untrusted in _meta; a provider added to toolhost.json activates WebSearch while serving', async () => {
  const base = { network: { allowPrivate: ['127.0.0.1'] }, approval: { allow: ['FetchURL'] } };
  writeConfig(base);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--cwd', root], cwd: root, env: cliEnv() as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new Client({ name: 'e2e-web', version: '1.0.0' });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  await client.connect(transport);
  const names = async () => (await client!.listTools()).tools.map((t) => t.name);
  expect(await names()).toContain('FetchURL');
  expect(await names()).not.toContain('WebSearch');

  const page = (await client.callTool({ name: 'FetchURL', arguments: { url: `${server.origin}/page` } })) as CallToolResult;
  expect(page.isError).toBeUndefined();
  expect(JSON.stringify(page.content)).toContain('Hello from the page.');
  expect(page._meta).toEqual(UNTRUSTED_META);
  const missing = (await client.callTool({ name: 'FetchURL', arguments: { url: `${server.origin}/missing` } })) as CallToolResult;
  expect([missing.isError, missing._meta]).toEqual([true, UNTRUSTED_META]);

  writeConfig({ ...base, webSearch: { provider: 'searxng', searxng: { baseUrl: server.origin } } });
  await waitFor(async () => listChanged > 0 && (await names()).includes('WebSearch'), { what: `WebSearch to activate after the config change (stderr: ${stderr})` });
  const search = (await client.callTool({ name: 'WebSearch', arguments: { query: 'some query' } })) as CallToolResult;
  expect(search.isError).toBeUndefined();
  expect(JSON.stringify(search.content)).toContain('https://a.example/');
  expect(search._meta).toEqual(UNTRUSTED_META);
});
