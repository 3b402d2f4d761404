import { type ChildProcess, spawn } from 'node:child_process';
import type { ToolProgressEvent } from '../../../../src/services/executor/toolExecutor';
import { useAgent } from '../../../helpers/agentHarness';
import { openMcpClientHarness, textOf } from '../../../helpers/mcpClientHarness';
import { FIXTURE_SERVER, type FixtureOptions } from '../../../helpers/mcpFixtureServer';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-http-' });
let server: ChildProcess | undefined;

// After the fixture's afterEach has disposed the App.
afterEach(async () => {
  server?.kill('SIGKILL');
  server = undefined;
});

/** Starts the fixture as a Streamable HTTP server on 127.0.0.1 and returns its endpoint. */
function startHttpFixture(options: FixtureOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE_SERVER, JSON.stringify({ ...options, http: true })], { stdio: ['ignore', 'pipe', 'inherit'] });
    server = child;
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const match = /LISTENING (\d+)/.exec(out);
      if (match) resolve(`http://127.0.0.1:${match[1]}/mcp`);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the HTTP fixture exited with code ${code}`)));
  });
}

describe('a Streamable HTTP MCP server', () => {
  test('connects with headers (expanded from the environment), registers its tools, and calls work', async () => {
    const url = await startHttpFixture({ requireToken: 's3cret' });
    process.env.TOOLHOST_TEST_MCP_TOKEN = 's3cret';
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { web: { url, headers: { Authorization: 'Bearer ${TOOLHOST_TEST_MCP_TOKEN}' } } } }));
    await h.serverState('web', 'ready');
    expect(h.manager.server('web')).toMatchObject({ transport: 'http', state: 'ready' });
    expect(h.agent.registry.get('mcp__web__echo')).toMatchObject({ source: 'mcp', owner: 'mcp:web' });
    expect(await h.call('mcp__web__echo', { text: 'over http' })).toMatchObject({ output: 'echo: over http', outcome: 'executed' });
    expect(await h.call('mcp__web__add', { a: 2, b: 3 })).toMatchObject({ output: '{"sum":5}', structuredContent: { sum: 5 } });
    const echo = await h.agent.registry.get('mcp__web__echo')!.tool.resolveExecution({ text: 'a' } as never);
    expect(echo).toMatchObject({ accesses: [{ kind: 'network' }] });
    const progress: ToolProgressEvent[] = [];
    h.agent.executor.onToolProgress((e) => progress.push(e));
    expect(await h.call('mcp__web__slow', { steps: 3, stepMs: 20 })).toMatchObject({ output: 'done after 3 steps' });
    expect(progress[0]!.update).toEqual({ kind: 'progress', progress: 1, total: 3, text: 'step 1' });
  });

  test('a refused connection (401) fails to start with a warning', async () => {
    const url = await startHttpFixture({ requireToken: 's3cret' });
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { web: { url, headers: { Authorization: 'Bearer wrong' } } } }));
    await h.serverState('web', 'failed');
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]!.message).toBe(
      'MCP server "web" failed to start: the server answered HTTP 401 (Streamable HTTP error: Error POSTing to endpoint: {"error":"unauthorized"}); check mcpServers.web.headers. Its tools are unavailable.',
    );
  });

  test('nothing listening: the server fails to start', async () => {
    const url = await startHttpFixture();
    server!.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { web: { url } } }));
    await h.serverState('web', 'failed');
    expect(h.warnings[0]!.message).toMatch(/^MCP server "web" failed to start: fetch failed \(.*ECONNREFUSED.*\)\. Its tools are unavailable\.$/);
  });

  test('a server that goes away: the next call gets a clear error, its tools leave, a warning says so', async () => {
    const url = await startHttpFixture();
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { web: { url } } }));
    await h.serverState('web', 'ready');
    server!.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
    const result = await h.call('mcp__web__echo', { text: 'anyone?' });
    expect(result.isError).toBe(true);
    expect(textOf(result.output)).toMatch(/^MCP server "web" could not be reached to call "echo": fetch failed \(.*ECONNREFUSED.*\)\. Its tools were removed\.$/);
    await h.serverState('web', 'failed');
    expect(h.agent.registry.has('mcp__web__echo')).toBe(false);
    expect(h.warnings.filter((w) => w.code === 'server_stopped').map((w) => w.message)).toEqual([
      expect.stringMatching(/^MCP server "web" stopped: it could not be reached: fetch failed .*\. Its tools were removed; it is not restarted automatically\.$/),
    ]);
  });

  test('1,600 calls on one connection print no MaxListenersExceededWarning (each request has its own abort signal)', async () => {
    const url = await startHttpFixture();
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { web: { url } } }));
    await h.serverState('web', 'ready');
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      // Node's fetch raises the limit of a signal it listens to to 1,500.
      for (let i = 0; i < 1600; i++) expect(await h.call('mcp__web__echo', { text: `n${i}` })).toMatchObject({ output: `echo: n${i}` });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});
