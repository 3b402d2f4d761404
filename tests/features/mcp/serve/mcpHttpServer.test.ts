import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearerMatches, isLoopbackHost, normalizeOrigin, parseHostPort } from '../../../../src/features/mcp/serve/http/httpGuards';
import { McpHttpServer } from '../../../../src/features/mcp/serve/http/mcpHttpServer';
import { argsDigest, canonicalJson, checkApprovalToken, parseApprovalToken, signApproval } from '../../../../src/features/mcp/serve/http/signedApproval';
import { type Agent } from '../../../../src/scopes/agentScope';
import { type App, createApp } from '../../../../src/scopes/appScope';
import { callResultText } from '../../../helpers/mcpServeHarness';
import { makeTempDir, removeDir } from '../../../helpers/tempDir';
import { waitFor } from '../../../helpers/async';

describe('signed approvals', () => {
  test('canonical JSON sorts keys at every level and drops undefined, so equal arguments have one digest', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' }, u: undefined })).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
    expect(argsDigest({ path: 'a', content: 'b' })).toBe(argsDigest({ content: 'b', path: 'a' }));
    expect(argsDigest({ path: 'a' })).not.toBe(argsDigest({ path: 'b' }));
    expect(argsDigest(undefined)).toBe(argsDigest({}));
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('NaN is not JSON');
  });

  test('a token verifies for its call only, until it expires', () => {
    const claims = { toolCallId: 'mcp_1', tool: 'Write', argsDigest: argsDigest({ path: 'a' }), expires: 2_000 };
    const token = signApproval('secret', claims);
    expect(token).toEqual({ toolCallId: 'mcp_1', expires: 2_000, signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(checkApprovalToken('secret', token, claims, 1_999)).toBeUndefined();
    expect(checkApprovalToken('secret', token, claims, 2_000)).toBe('the approval token expired at 1970-01-01T00:00:02.000Z; ask again and sign a new one.');
    expect(checkApprovalToken('other', token, claims, 1_000)).toMatch(/^the approval token does not match this call/);
    expect(checkApprovalToken('secret', token, { ...claims, argsDigest: argsDigest({ path: 'b' }) }, 1_000)).toMatch(/does not match this call/);
    expect(checkApprovalToken('secret', token, { ...claims, tool: 'Bash' }, 1_000)).toMatch(/does not match this call/);
    expect(checkApprovalToken('secret', { ...token, toolCallId: 'mcp_2' }, claims, 1_000)).toMatch(/does not match this call/);
    // An expiry moved later than the one signed breaks the signature.
    expect(checkApprovalToken('secret', { ...token, expires: 9_999 }, claims, 1_000)).toMatch(/does not match this call/);
  });

  test('a malformed token is refused with what it must look like', () => {
    expect(parseApprovalToken('abc')).toContain('must be an object {"toolCallId"');
    expect(parseApprovalToken({ toolCallId: '../x', expires: 1, signature: 'a'.repeat(64) })).toContain('.toolCallId must be');
    expect(parseApprovalToken({ toolCallId: 'x', expires: 1.5, signature: 'a'.repeat(64) })).toContain('.expires must be a Unix time in milliseconds');
    expect(parseApprovalToken({ toolCallId: 'x', expires: 1, signature: 'zz' })).toContain('.signature must be 64 hex digits');
    expect(parseApprovalToken({ toolCallId: 'x', expires: 1, signature: 'a'.repeat(64) })).toEqual({ toolCallId: 'x', expires: 1, signature: 'a'.repeat(64) });
  });
});

describe('HTTP guards', () => {
  test('loopback addresses, HOST:PORT, origins, bearer tokens', () => {
    expect(['127.0.0.1', '127.8.0.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'].map(isLoopbackHost)).toEqual([true, true, true, true, true, true]);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
    expect(parseHostPort('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseHostPort('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(() => parseHostPort('8080')).toThrow('"8080" is not HOST:PORT');
    expect(() => parseHostPort('a:70000')).toThrow('is not HOST:PORT');
    expect(normalizeOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com');
    expect(normalizeOrigin('null')).toBeUndefined();
    const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as never;
    expect(bearerMatches(req('Bearer s3cret'), 's3cret')).toBe(true);
    expect(bearerMatches(req('bearer s3cret'), 's3cret')).toBe(true);
    expect(bearerMatches(req('Bearer s3cre'), 's3cret')).toBe(false);
    expect(bearerMatches(req('Basic s3cret'), 's3cret')).toBe(false);
    expect(bearerMatches(req(), 's3cret')).toBe(false);
  });
});

describe('McpHttpServer in-process, stateless', () => {
  let dir: string;
  let app: App;
  let server: McpHttpServer | undefined;
  const created: Agent[] = [];
  const clients: Client[] = [];
  beforeEach(() => {
    dir = makeTempDir('toolhost-http-lru-');
    app = createApp();
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await server?.close();
    server = undefined;
    created.length = 0;
    await app.dispose();
    removeDir(dir);
  });

  async function open(agentId: string): Promise<Client> {
    const client = new Client({ name: 'lru', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server!.address.port}/mcp/agents/${agentId}`)));
    clients.push(client);
    return client;
  }

  test('agents live in a bounded LRU: the least recently used is disposed past --max-agents and rebuilt from its state on the next request', async () => {
    server = await McpHttpServer.listen({
      host: '127.0.0.1',
      port: 0,
      stateless: true,
      maxAgents: 2,
      createAgent: ({ id, overrides }) => {
        const agent = app.createAgent({ id: id!, cwd: dir, dataDir: nodePath.join(dir, '.agents', id!), overrides });
        created.push(agent);
        return agent;
      },
    });
    const call = async (client: Client, args: Record<string, unknown>) => callResultText((await client.callTool({ name: 'TodoList', arguments: args })) as CallToolResult);
    const one = await open('one');
    await call(one, { add: [{ title: 'kept in the store' }] });
    await call(await open('two'), {});
    expect(server.counts.agents).toBe(2);
    await call(await open('three'), {});
    // "one" was the least recently used: disposed.
    await waitFor(() => created.find((a) => a.id === 'one')!.isDisposed, { what: 'agent one to be disposed' });
    expect(server.counts.agents).toBe(2);
    expect(created.filter((a) => !a.isDisposed).map((a) => a.id)).toEqual(['two', 'three']);
    // Rebuilt from the state store on its next request.
    expect(await call(one, {})).toContain('kept in the store');
    expect(created.map((a) => a.id)).toEqual(['one', 'two', 'three', 'one']);
    expect(server.counts.agents).toBe(2);
  });
});
