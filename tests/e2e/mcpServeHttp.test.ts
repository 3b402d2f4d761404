import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, type ElicitRequest, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { argsDigest, signApproval, MCP_META_APPROVAL_REQUEST, type SignedApprovalRequest } from '../../src/features/mcp/serve/http/signedApproval';
import { runCliProcess, startCliProcess, type StartedCli } from '../helpers/cliProcess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';
import { waitFor } from '../helpers/async';
import { callResultText } from '../helpers/mcpServeHarness';

let root: string;
let ws: string;
beforeEach(() => {
  root = makeTempDir('toolhost-mcp-http-');
  ws = nodePath.join(root, 'ws');
  writeFiles(root, { 'ws/a.txt': 'alpha\nbeta\n', 'secret.txt': 'the-approval-secret\n', 'token.txt': 'the-bearer-token\n' });
});

interface Served {
  readonly cli: StartedCli;
  readonly port: number;
  readonly base: string;
  stop(): Promise<void>;
}
const started: Served[] = [];
const clients: Client[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.allSettled(started.splice(0).map((s) => s.stop()));
  await Promise.allSettled(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
  removeDir(root);
});

/** Starts the built CLI with `mcp serve --http 127.0.0.1:0 …` and reads the bound port from stderr. */
async function serveHttp(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const cli = startCliProcess(['mcp', 'serve', '--http', '127.0.0.1:0', '--cwd', ws, '--no-watch', ...args], { cwd: root, env });
  let port = 0;
  await waitFor(() => {
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(cli.stderr());
    if (match) port = Number(match[1]);
    if (cli.child.exitCode !== null) throw new Error(`the server exited: ${cli.stderr()}`);
    return port > 0;
  }, { what: 'the server to print its address' });
  const served: Served = {
    cli,
    port,
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
      await cli.exit;
    },
  };
  started.push(served);
  return served;
}

async function connect(url: string, options: { elicitation?: (request: ElicitRequest) => ElicitResult; headers?: Record<string, string> } = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport; elicitations: ElicitRequest[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), options.headers ? { requestInit: { headers: options.headers } } : {});
  const client = new Client({ name: 'http-e2e', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: {} } : {} });
  const elicitations: ElicitRequest[] = [];
  if (options.elicitation) {
    const answer = options.elicitation;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request);
      return answer(request);
    });
  }
  await client.connect(transport);
  clients.push(client);
  return { client, transport, elicitations };
}

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
}

async function health(base: string): Promise<{ status: string; instance: string; mode: string; sessions: number; agents: number }> {
  const res = await fetch(`${base}/healthz`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('toolhost mcp serve --http, stateful (a session per client)', () => {
  test('two sessions get two agents with their own state; /healthz counts them; DELETE ends a session', async () => {
    const s = await serveHttp([]);
    const a = await connect(`${s.base}/mcp`);
    const b = await connect(`${s.base}/mcp`);
    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('Read');
    expect(callResultText(await call(a.client, 'Read', { path: 'a.txt' }))).toContain('alpha');
    await call(a.client, 'TodoList', { add: [{ title: 'only in session A' }] });
    expect(callResultText(await call(a.client, 'TodoList', {}))).toContain('only in session A');
    expect(callResultText(await call(b.client, 'TodoList', {}))).not.toContain('only in session A');
    expect(await health(s.base)).toMatchObject({ status: 'ok', mode: 'stateful', sessions: 2 });
    await b.transport.terminateSession();
    await waitFor(async () => (await health(s.base)).sessions === 1, { what: 'the session to close' });
    expect(s.cli.stderr()).toMatch(/session \S+ closed: the client ended it/);
  });

  test('an approval is asked of the client by elicitation, as over stdio', async () => {
    const s = await serveHttp([]);
    const c = await connect(`${s.base}/mcp`, { elicitation: () => ({ action: 'accept', content: { decision: 'approve' } }) });
    const result = await call(c.client, 'Write', { path: 'new.txt', content: 'written over http\n' });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['toolhost/outcome']).toBe('executed');
    expect(c.elicitations).toHaveLength(1);
    expect(c.elicitations[0]!.params.message).toContain('Write');
    expect(fs.readFileSync(nodePath.join(ws, 'new.txt'), 'utf8')).toBe('written over http\n');

    const rejecting = await connect(`${s.base}/mcp`, { elicitation: () => ({ action: 'accept', content: { decision: 'reject', reason: 'not now' } }) });
    const denied = await call(rejecting.client, 'Write', { path: 'other.txt', content: 'x' });
    expect(denied._meta?.['toolhost/outcome']).toBe('denied');
    expect(callResultText(denied)).toContain('not now');
    expect(fs.existsSync(nodePath.join(ws, 'other.txt'))).toBe(false);
  });

  test('a session idle for --session-idle is closed and its agent disposed; its id is then refused with a sentence', async () => {
    const s = await serveHttp(['--session-idle', '400ms']);
    const c = await connect(`${s.base}/mcp`);
    await call(c.client, 'Read', { path: 'a.txt' });
    expect((await health(s.base)).sessions).toBe(1);
    const sessionId = c.transport.sessionId!;
    await waitFor(async () => (await health(s.base)).sessions === 0, { what: 'the idle session to close' });
    expect(s.cli.stderr()).toContain(`session ${sessionId} closed: idle for 400 ms (--session-idle)`);
    const res = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('is not open (it ended or idled out after --session-idle); initialize a new one');
  });
});

/** A round-robin HTTP proxy in front of `targets`; records which instance answered each request. */
async function roundRobinProxy(targets: readonly number[]): Promise<{ url: string; answeredBy: string[] }> {
  let next = 0;
  const answeredBy: string[] = [];
  const proxy = http.createServer((req, res) => {
    const port = targets[next++ % targets.length]!;
    const upstream = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      answeredBy.push(String(up.headers['x-toolhost-instance']));
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  servers.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, answeredBy };
}

describe('toolhost mcp serve --http --stateless (any instance answers)', () => {
  async function twoInstances(): Promise<{ proxy: { url: string; answeredBy: string[] }; a: Served; b: Served }> {
    const common = ['--stateless', '--data-dir', nodePath.join(root, 'agents'), '--approval-secret-file', nodePath.join(root, 'secret.txt')];
    const [a, b] = await Promise.all([serveHttp([...common, '--instance-id', 'A']), serveHttp([...common, '--instance-id', 'B'])]);
    return { proxy: await roundRobinProxy([a.port, b.port]), a, b };
  }

  test('calls are answered by both instances and the agent state is continuous through the shared store', async () => {
    const { proxy } = await twoInstances();
    const { client } = await connect(`${proxy.url}/mcp/agents/agent-7`);
    await call(client, 'TodoList', { add: [{ title: 'written through one instance' }] });
    const reads = [await call(client, 'TodoList', {}), await call(client, 'TodoList', {}), await call(client, 'TodoList', {})];
    for (const read of reads) expect(callResultText(read)).toContain('written through one instance');
    expect(new Set(proxy.answeredBy)).toEqual(new Set(['A', 'B']));
    // Another agent id is another agent, with its own state.
    const other = await connect(`${proxy.url}/mcp/agents/agent-8`);
    expect(callResultText(await call(other.client, 'TodoList', {}))).not.toContain('written through one instance');
  });

  test('a call that needs approval ends as needs_approval; a signed token approves it on either instance; other arguments, a wrong secret and an expired token are refused', async () => {
    const { proxy } = await twoInstances();
    const { client } = await connect(`${proxy.url}/mcp/agents/writer`);
    const args = { path: 'signed.txt', content: 'approved by token\n' };
    const first = await call(client, 'Write', args);
    expect(first.isError).toBe(true);
    expect(first._meta?.['toolhost/outcome']).toBe('needs_approval');
    const request = first._meta?.[MCP_META_APPROVAL_REQUEST] as SignedApprovalRequest;
    expect(request).toMatchObject({ tool: 'Write', argsDigest: argsDigest(args), approvalRule: expect.stringContaining('Write') });
    expect(request.accesses).toEqual([expect.objectContaining({ kind: 'file', op: 'write', path: expect.stringContaining('signed.txt') })]);
    expect(callResultText(first)).toContain('repeat the same call with _meta["toolhost/approval"]');
    expect(fs.existsSync(nodePath.join(ws, 'signed.txt'))).toBe(false);

    const secret = 'the-approval-secret';
    const claims = { toolCallId: request.toolCallId, tool: 'Write', argsDigest: request.argsDigest, expires: Date.now() + 60_000 };
    // Signed for these arguments, sent with others.
    const otherArgs = { path: 'signed.txt', content: 'something else\n' };
    const reused = await call(client, 'Write', otherArgs, { 'toolhost/approval': signApproval(secret, claims) });
    expect(reused._meta?.['toolhost/outcome']).toBe('needs_approval');
    expect(callResultText(reused)).toContain('The approval token was refused: the approval token does not match this call');
    expect((reused._meta?.[MCP_META_APPROVAL_REQUEST] as SignedApprovalRequest).refused).toContain('does not match');
    const forged = await call(client, 'Write', args, { 'toolhost/approval': signApproval('another secret', claims) });
    expect(callResultText(forged)).toContain('does not match this call');
    const expired = await call(client, 'Write', args, { 'toolhost/approval': signApproval(secret, { ...claims, expires: Date.now() - 1000 }) });
    expect(expired._meta?.['toolhost/outcome']).toBe('needs_approval');
    expect(callResultText(expired)).toMatch(/the approval token expired at \S+; ask again and sign a new one/);
    const malformed = await call(client, 'Write', args, { 'toolhost/approval': { toolCallId: request.toolCallId } });
    expect(malformed._meta?.['toolhost/outcome']).toBe('rejected');
    expect(callResultText(malformed)).toContain('.expires must be a Unix time in milliseconds');
    expect(fs.existsSync(nodePath.join(ws, 'signed.txt'))).toBe(false);

    const approved = await call(client, 'Write', args, { 'toolhost/approval': signApproval(secret, claims) });
    expect(approved._meta?.['toolhost/outcome']).toBe('executed');
    expect(fs.readFileSync(nodePath.join(ws, 'signed.txt'), 'utf8')).toBe('approved by token\n');
    expect(new Set(proxy.answeredBy)).toEqual(new Set(['A', 'B']));
  });

  test('a bad agent id is 400 with a sentence; GET is 405; another path is 404', async () => {
    const s = await serveHttp(['--stateless', '--data-dir', nodePath.join(root, 'agents')]);
    const bad = await fetch(`${s.base}/mcp/agents/..%2Fescape`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('is invalid: use 1–64 letters, digits, \\"_\\" and \\"-\\"');
    const long = await fetch(`${s.base}/mcp/agents/${'a'.repeat(65)}`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) });
    expect(long.status).toBe(400);
    expect((await fetch(`${s.base}/mcp/agents/ok`)).status).toBe(405);
    expect((await fetch(`${s.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) })).status).toBe(404);
    // Without a secret, a call that needs approval is denied and the message says how to enable tokens.
    const { client } = await connect(`${s.base}/mcp/agents/ok`);
    const denied = await call(client, 'Write', { path: 'x.txt', content: 'x' });
    expect(denied._meta?.['toolhost/outcome']).toBe('denied');
    expect(callResultText(denied)).toContain('--approval-secret-file');
  });
});

describe('toolhost mcp serve --http: security', () => {
  test('with a token every MCP request needs it (401 without or wrong); /healthz answers without', async () => {
    const s = await serveHttp(['--token-file', nodePath.join(root, 'token.txt')]);
    const missing = await fetch(`${s.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.text()).toContain('The bearer token is missing');
    const wrong = await fetch(`${s.base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: 'Bearer nope' }, body: JSON.stringify(INIT) });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The bearer token is wrong');
    await expect(connect(`${s.base}/mcp`)).rejects.toThrow(/The bearer token is missing/);
    const { client } = await connect(`${s.base}/mcp`, { headers: { authorization: 'Bearer the-bearer-token' } });
    expect(callResultText(await call(client, 'Read', { path: 'a.txt' }))).toContain('alpha');
    expect((await health(s.base)).status).toBe('ok');
  });

  test('TOOLHOST_MCP_TOKEN works like --token-file', async () => {
    const s = await serveHttp([], { TOOLHOST_MCP_TOKEN: 'from-env' });
    expect((await fetch(`${s.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) })).status).toBe(401);
    const ok = await fetch(`${s.base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: 'Bearer from-env' }, body: JSON.stringify(INIT) });
    expect(ok.status).toBe(200);
  });

  test('a foreign Origin is 403; the server\'s own origin, no Origin and --allow-origin pass', async () => {
    const s = await serveHttp(['--allow-origin', 'https://app.example.com']);
    const post = (origin?: string) => fetch(`${s.base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...(origin ? { origin } : {}) }, body: JSON.stringify(INIT) });
    const foreign = await post('http://evil.example');
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain('Origin \\"http://evil.example\\" is not allowed (DNS rebinding protection); start the server with --allow-origin http://evil.example');
    expect((await post(`http://localhost:${s.port}`)).status).toBe(200);
    expect((await post('https://app.example.com')).status).toBe(200);
    expect((await post()).status).toBe(200);
  });

  test('a body over --max-body is 413 before it is read, declared or streamed', async () => {
    const s = await serveHttp(['--max-body', '1000']);
    const send = (chunked: boolean) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: s.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, ...(chunked ? {} : { 'content-length': String(50 * 1024 * 1024) }) } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        // Far less than declared: the answer comes without the rest of the body.
        req.write('x'.repeat(64 * 1024));
      });
    const declared = await send(false);
    expect(declared.status).toBe(413);
    expect(declared.body).toContain('at most 1000 bytes are accepted (--max-body)');
    const streamed = await send(true);
    expect(streamed.status).toBe(413);
    expect(streamed.body).toContain('more than 1000 bytes');
  });

  test('a non-loopback address without a token is refused with the fix; flags that need --http or --stateless say so', async () => {
    const open = await runCliProcess(['mcp', 'serve', '--http', '0.0.0.0:0', '--cwd', ws], { cwd: root, env: { TOOLHOST_MCP_TOKEN: '' } });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('refusing to serve on 0.0.0.0, which is not a loopback address, without a bearer token');
    expect(open.stderr).toContain('--token-file <file> or the TOOLHOST_MCP_TOKEN environment variable, or bind 127.0.0.1');
    const noData = await runCliProcess(['mcp', 'serve', '--http', '127.0.0.1:0', '--stateless', '--cwd', ws], { cwd: root });
    expect(noData.code).toBe(2);
    expect(noData.stderr).toContain('--stateless needs --data-dir <dir>');
    const noHttp = await runCliProcess(['mcp', 'serve', '--stateless', '--cwd', ws], { cwd: root });
    expect(noHttp.code).toBe(2);
    expect(noHttp.stderr).toContain('--stateless needs --http HOST:PORT');
    const badAddress = await runCliProcess(['mcp', 'serve', '--http', 'localhost', '--cwd', ws], { cwd: root });
    expect(badAddress.code).toBe(2);
    expect(badAddress.stderr).toContain('is not HOST:PORT; give e.g. 127.0.0.1:8080');
    const badIdle = await runCliProcess(['mcp', 'serve', '--http', '127.0.0.1:0', '--session-idle', 'soon', '--cwd', ws], { cwd: root });
    expect(badIdle.code).toBe(2);
    expect(badIdle.stderr).toContain('--session-idle: "soon" is not a duration');
  });
});
