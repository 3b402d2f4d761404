import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppConfigInput } from '../../../../src/scopes/appScope';
import { useAgent } from '../../../helpers/agentHarness';
import { type McpServeHarness, openMcpServeHarness } from '../../../helpers/mcpServeHarness';
import { searchFeatures } from '../../../tools/web/search/searchFixtures';
import { type LocalServer, startServer } from '../../../tools/web/webFixtures';

// Every tool result that carries metadata reaches an MCP client in `_meta` (toolhost/metadata), through a real SDK client.
const fx = useAgent({ prefix: 'toolhost-mcp-meta-' });
let server: LocalServer;
let h: McpServeHarness;

beforeEach(async () => {
  server = await startServer();
  server.route('/page', (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>T</title></head><body><p>Hello from the page.</p></body></html>'));
  server.route('/missing', (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('not here'));
  server.route('/search', (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [{ title: 'A', url: 'https://a.example/', content: 'snippet' }] })),
  );
});
afterEach(() => server.close());

async function open(): Promise<McpServeHarness> {
  const config = {
    network: { allowPrivate: ['127.0.0.1'] },
    approval: { allow: ['FetchURL'] },
    webSearch: { provider: 'searxng', searxng: { baseUrl: server.origin } },
  } as AppConfigInput;
  h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: searchFeatures(), config }));
  return h;
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await h.client.callTool({ name, arguments: args })) as CallToolResult;
}

test('FetchURL: a page and an error page are both marked untrusted in _meta', async () => {
  await open();
  const page = await call('FetchURL', { url: server.url('/page') });
  expect(page.isError).toBeUndefined();
  expect(page._meta).toEqual({ 'toolhost/outcome': 'executed', 'toolhost/metadata': { untrusted: true } });
  const missing = await call('FetchURL', { url: server.url('/missing') });
  expect(missing.isError).toBe(true);
  expect(missing._meta).toEqual({ 'toolhost/outcome': 'executed', 'toolhost/metadata': { untrusted: true } });
});

test('WebSearch results are marked the same way', async () => {
  await open();
  const result = await call('WebSearch', { query: 'some query' });
  expect(result._meta).toEqual({ 'toolhost/outcome': 'executed', 'toolhost/metadata': { untrusted: true } });
});
