import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpHttpServer, type McpHttpServerOptions } from '../../../../src/features/mcp/serve/http/mcpHttpServer';
import { type App, createApp } from '../../../../src/scopes/appScope';
import { callResultText } from '../../../helpers/mcpServeHarness';
import { makeTempDir, removeDir, writeFiles } from '../../../helpers/tempDir';
import { waitFor } from '../../../helpers/async';

/**
 * What toolhost's own Streamable HTTP transport does that the SDK's did, checked on the wire
 * against the spec's "Streamable HTTP" section: JSON or SSE answers, Mcp-Session-Id,
 * MCP-Protocol-Version, 405/406/415/409, the GET stream, and request ids kept apart.
 */
let dir: string;
let app: App;
let server: McpHttpServer | undefined;
const clients: Client[] = [];
beforeEach(() => {
  dir = makeTempDir('toolhost-http-transport-');
  writeFiles(dir, { 'a.txt': 'alpha\n', 'b.txt': 'bravo\n' });
  app = createApp();
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
  await app.dispose();
  removeDir(dir);
});

async function listen(options: Partial<McpHttpServerOptions> = {}): Promise<string> {
  server = await McpHttpServer.listen({
    host: '127.0.0.1',
    port: 0,
    createAgent: ({ id, overrides }) => app.createAgent({ ...(id ? { id, dataDir: nodePath.join(dir, '.agents', id) } : {}), cwd: dir, overrides }),
    ...options,
  });
  return `http://127.0.0.1:${server.address.port}`;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Initializes a session with raw requests; the headers every later request of it sends. */
async function openSession(base: string): Promise<Record<string, string>> {
  const init = await post(`${base}/mcp`, INIT);
  expect(init.status).toBe(200);
  const sessionId = init.headers.get('mcp-session-id');
  expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
  await init.text();
  const headers = { 'mcp-session-id': sessionId!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
  const initialized = await post(`${base}/mcp`, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  expect(initialized.status).toBe(202);
  expect(await initialized.text()).toBe('');
  return headers;
}

function sseMessages(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((event) => /^data: (.*)$/m.exec(event)?.[1])
    .filter((data): data is string => data !== undefined)
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

describe('Streamable HTTP transport: answers', () => {
  test('a request that sends nothing before its answer gets one application/json body with the session id; a notification gets 202', async () => {
    const base = await listen();
    const headers = await openSession(base);
    const res = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 'read-1', method: 'tools/call', params: { name: 'Read', arguments: { path: 'a.txt' } } }, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    const answer = (await res.json()) as { id: unknown; result: CallToolResult };
    expect(answer.id).toBe('read-1');
    expect(callResultText(answer.result)).toContain('alpha');
  });

  test('a call that reports progress before its answer is answered as an SSE stream: the progress events, then the result, then the stream ends', async () => {
    const base = await listen({ approveAll: true, serverOptions: { heartbeatMs: 40 } });
    const headers = await openSession(base);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'sleep 0.4; echo finished' }, _meta: { progressToken: 'p-1' } } };
    const res = await post(`${base}/mcp`, call, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    const messages = sseMessages(await res.text());
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.params).toMatchObject({ progressToken: 'p-1', message: expect.stringContaining('still running') });
    const last = messages[messages.length - 1]!;
    expect(last.id).toBe(7);
    expect(callResultText(last.result as CallToolResult)).toContain('finished');
  });

  test('stateless: two clients of one agent that use the same request id at the same time each get their own answer', async () => {
    const base = await listen({ stateless: true });
    const url = `${base}/mcp/agents/shared`;
    const readCall = (path: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Read', arguments: { path } } });
    const [a, b] = await Promise.all([post(url, readCall('a.txt')), post(url, readCall('b.txt'))]);
    const [answerA, answerB] = (await Promise.all([a.json(), b.json()])) as Array<{ id: unknown; result: CallToolResult }>;
    expect(answerA.id).toBe(1);
    expect(answerB.id).toBe(1);
    expect(callResultText(answerA.result)).toContain('alpha');
    expect(callResultText(answerB.result)).toContain('bravo');
    expect(server!.counts.agents).toBe(1);
  });

  test('stateless: a client that disconnects before its answer cancels the call', async () => {
    const base = await listen({ stateless: true, approveAll: true });
    const marker = nodePath.join(dir, 'marker.txt');
    const controller = new AbortController();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: `sleep 1; echo late > ${marker}` } } };
    const request = fetch(`${base}/mcp/agents/leaver`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH }, body: JSON.stringify(call) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await expect(request).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('Streamable HTTP transport: refusals per the spec', () => {
  test('POST must accept JSON and SSE (406) and be JSON (415); GET must accept SSE (406); other methods are 405 with Allow', async () => {
    const base = await listen();
    const headers = await openSession(base);
    const notAcceptable = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...headers, accept: 'application/json' });
    expect(notAcceptable.status).toBe(406);
    expect(await notAcceptable.text()).toContain('must accept both application/json and text/event-stream');
    const notJson = await post(`${base}/mcp`, '{"jsonrpc":"2.0","id":2,"method":"ping"}', { ...headers, 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expect(await notJson.text()).toContain('must be \\"Content-Type: application/json\\"');
    const getJson = await fetch(`${base}/mcp`, { headers: { ...headers, accept: 'application/json' } });
    expect(getJson.status).toBe(406);
    expect(await getJson.text()).toContain('send \\"Accept: text/event-stream\\"');
    const put = await fetch(`${base}/mcp`, { method: 'PUT', headers, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    const ok = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 3, method: 'ping' }, headers);
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  test('MCP-Protocol-Version: an unsupported version is 400 naming the supported ones; a supported one or none passes', async () => {
    const base = await listen();
    const headers = await openSession(base);
    const ping = (version?: string) => post(`${base}/mcp`, { jsonrpc: '2.0', id: 4, method: 'ping' }, { 'mcp-session-id': headers['mcp-session-id']!, ...(version ? { 'mcp-protocol-version': version } : {}) });
    const bad = await ping('1999-01-01');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain(`MCP-Protocol-Version \\"1999-01-01\\" is not supported; this server speaks ${LATEST_PROTOCOL_VERSION}`);
    expect((await ping(LATEST_PROTOCOL_VERSION)).status).toBe(200);
    expect((await ping('2025-03-26')).status).toBe(200);
    expect((await ping()).status).toBe(200);
  });

  test('Mcp-Session-Id: initialize answers with a new one; without it a request is 400, a second initialize of the session is 400, an unknown one 404; DELETE ends it', async () => {
    const base = await listen();
    const first = await openSession(base);
    const second = await openSession(base);
    expect(second['mcp-session-id']).not.toBe(first['mcp-session-id']);
    const noSession = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(noSession.status).toBe(400);
    const again = await post(`${base}/mcp`, INIT, first);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('is already initialized; initialize a new session without the Mcp-Session-Id header');
    const unknown = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 6, method: 'ping' }, { 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    const ended = await fetch(`${base}/mcp`, { method: 'DELETE', headers: first });
    expect(ended.status).toBe(200);
    expect(server!.counts.sessions).toBe(1);
    expect((await post(`${base}/mcp`, { jsonrpc: '2.0', id: 7, method: 'ping' }, first)).status).toBe(404);
  });

  test('a body that is not JSON-RPC, or a batch over the limit, is 400 with what to send', async () => {
    const base = await listen({ stateless: true });
    const url = `${base}/mcp/agents/batch`;
    const notRpc = await post(url, { hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.text()).toContain('is not a JSON-RPC 2.0 request, notification or response');
    const big = await post(url, Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })));
    expect(big.status).toBe(400);
    expect(await big.text()).toContain('a batch of 101 messages is over the limit of 100');
    // A batch (protocol 2025-03-26) is answered with the array of its answers.
    const batch = await post(url, [
      { jsonrpc: '2.0', id: 'x', method: 'ping' },
      { jsonrpc: '2.0', id: 'y', method: 'ping' },
    ]);
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 'x', result: {} },
      { jsonrpc: '2.0', id: 'y', result: {} },
    ]);
  });
});

describe('Streamable HTTP transport: the GET stream', () => {
  test("a session's GET stream is text/event-stream, one at a time (409), and carries what relates to no request", async () => {
    const base = await listen();
    const client = new Client({ name: 'get-stream', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
    await client.connect(transport);
    clients.push(client);
    const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, accept: 'text/event-stream' };
    // The SDK client opened its GET stream after initializing: a second one is refused.
    await waitFor(async () => (await fetch(`${base}/mcp`, { headers })).status === 409, { what: "the client's GET stream to open" });
    const changed: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.push('tools'));
    await client.listTools();
    // A notification unrelated to any request (the tool list changed) goes on the GET stream.
    app.config.update({ tools: { disabled: ['Read'] } });
    await waitFor(() => changed.length > 0, { what: 'notifications/tools/list_changed on the GET stream' });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('Read');
  });
});
