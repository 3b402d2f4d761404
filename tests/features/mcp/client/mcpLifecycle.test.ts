import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../../../../src/scopes/appScope';
import { IMcpConnectionManager } from '../../../../src/features/mcp/client/mcpConnections';
import type { McpConnectionManager } from '../../../../src/features/mcp/client/mcpConnectionManager';
import { createMcpFeature } from '../../../../src/features/mcp/mcpFeature';
import { useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { type McpClientHarness, mcpToolNames, openMcpClientHarness, textOf } from '../../../helpers/mcpClientHarness';
import { FIXTURE_SERVER, fixtureServer } from '../../../helpers/mcpFixtureServer';
import { isAlive } from '../../../helpers/processes';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-' });


/** Warnings other than the fixture's deliberately invalid bad_schema tool. */
function serverWarnings(h: McpClientHarness) {
  return h.warnings.filter((w) => w.code !== 'invalid_tool');
}

async function pidOf(h: McpClientHarness, server: string): Promise<number> {
  return Number(textOf((await h.call(`mcp__${server}__pid`, {})).output));
}

describe('servers that fail or stop', () => {
  test('a server that exits before initialize: a warning with its exit code and stderr; the others are unaffected', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { bad: fixtureServer({ exitAtStart: 2 }), good: fixtureServer() } }));
    await h.serverState('bad', 'failed');
    await h.serverState('good', 'ready');
    const expected =
      'the process closed the connection before initialize finished; the process exited with code 2; its last stderr output:\n    fixture: refusing to start (exitAtStart)';
    expect(h.manager.server('bad')).toMatchObject({ state: 'failed', error: expected, tools: [] });
    expect(serverWarnings(h)).toEqual([{ code: 'server_failed', server: 'bad', message: `MCP server "bad" failed to start: ${expected}. Its tools are unavailable.` }]);
    expect(mcpToolNames(h, 'bad')).toEqual([]);
    expect(await h.call('mcp__good__echo', { text: 'ok' })).toMatchObject({ output: 'echo: ok' });
    expect((await h.call('mcp__bad__echo', { text: 'x' })).output).toBe(
      `Tool "mcp__bad__echo" is unavailable: MCP server "bad" is not running (${expected}). Do not retry it; use another way.`,
    );
  });

  test('a command that does not exist', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { nope: { command: '/nonexistent/toolhost-mcp-server' } } }));
    await h.serverState('nope', 'failed');
    expect(serverWarnings(h).map((w) => w.message)).toEqual([
      'MCP server "nope" failed to start: the command "/nonexistent/toolhost-mcp-server" was not found (ENOENT); check "command" and PATH. Its tools are unavailable.',
    ]);
  });

  test('an unset environment variable in the config', async () => {
    delete process.env.TOOLHOST_TEST_UNSET_VARIABLE;
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({}, { env: { TOKEN: '${TOOLHOST_TEST_UNSET_VARIABLE}' } }) } }));
    await h.serverState('fx', 'failed');
    expect(h.manager.server('fx')!.error).toBe(
      'mcpServers.fx.env.TOKEN uses ${TOOLHOST_TEST_UNSET_VARIABLE}, but the environment variable TOOLHOST_TEST_UNSET_VARIABLE is not set',
    );
  });

  test('a server that does not finish starting within startupTimeoutMs fails, and its process is ended', async () => {
    const gate = nodePath.join(fx.dir, 'never');
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { stuck: fixtureServer({ waitForFile: gate }, { startupTimeoutMs: 500 }) } }));
    await waitFor(() => h.manager.pidOf('stuck'), { what: 'the process' });
    const pid = h.manager.pidOf('stuck')!;
    await h.serverState('stuck', 'failed');
    expect(serverWarnings(h).map((w) => w.message)).toEqual([
      'MCP server "stuck" failed to start: it did not finish starting within 500 ms (mcpServers.stuck.startupTimeoutMs). Its tools are unavailable.',
    ]);
    expect(isAlive(pid)).toBe(false);
  });

  test('a server that crashes during a call: a clear error, a warning, its tools leave, other servers are unaffected', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer(), other: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    await h.serverState('other', 'ready');
    const crash = await h.call('mcp__fx__crash', {});
    const reason = 'the process exited with code 3; its last stderr output:\n    crashing on purpose';
    expect(crash).toMatchObject({ output: `MCP server "fx" stopped while "crash" was running: ${reason}.`, isError: true, outcome: 'executed' });
    await h.serverState('fx', 'failed');
    expect(serverWarnings(h)).toEqual([
      { code: 'server_stopped', server: 'fx', message: `MCP server "fx" stopped: ${reason}. Its tools were removed; it is not restarted automatically.` },
    ]);
    expect(mcpToolNames(h, 'fx')).toEqual([]);
    expect(mcpToolNames(h, 'other').length).toBeGreaterThan(10);
    expect(await h.call('mcp__other__echo', { text: 'fine' })).toMatchObject({ output: 'echo: fine' });
    expect((await h.call('mcp__fx__echo', { text: 'x' })).output).toBe(
      `Tool "mcp__fx__echo" is unavailable: MCP server "fx" is not running (${reason}). Do not retry it; use another way.`,
    );
  });

  test('a server that dies on its own, between calls', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({ exitAfterMs: 300 }) } }));
    await h.serverState('fx', 'failed');
    expect(serverWarnings(h).map((w) => w.message)).toEqual([
      'MCP server "fx" stopped: the process exited with code 4. Its tools were removed; it is not restarted automatically.',
    ]);
    expect(mcpToolNames(h, 'fx')).toEqual([]);
  });

  test('restart(name) brings a stopped server back with its tools', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    await h.call('mcp__fx__crash', {});
    await h.serverState('fx', 'failed');
    await h.manager.restart('fx');
    await h.serverState('fx', 'ready');
    expect(await h.call('mcp__fx__echo', { text: 'back' })).toMatchObject({ output: 'echo: back' });
  });
});

describe('lifecycle', () => {
  test('app.dispose() ends every server process', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { one: fixtureServer(), two: fixtureServer() } }));
    await h.serverState('one', 'ready');
    await h.serverState('two', 'ready');
    const pids = [await pidOf(h, 'one'), await pidOf(h, 'two')];
    expect(pids.map(isAlive)).toEqual([true, true]);
    await h.dispose();
    expect(pids.map(isAlive)).toEqual([false, false]);
    expect(h.manager.servers).toEqual([]);
  });

  test('disposing while a server is still starting ends its process too', async () => {
    const gate = nodePath.join(fx.dir, 'never');
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { slow: fixtureServer({ waitForFile: gate }) } }));
    const pid = await waitFor(() => h.manager.pidOf('slow'), { what: 'the process' });
    await h.dispose();
    expect(isAlive(pid)).toBe(false);
  });

  test('a server that ignores stdin EOF and SIGTERM is killed', async () => {
    const script = nodePath.join(fx.dir, 'stubborn.cjs');
    // Serves MCP, but ignores SIGTERM and keeps running when stdin closes.
    fs.writeFileSync(
      script,
      `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); require(${JSON.stringify(FIXTURE_SERVER)});`,
    );
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { stubborn: { command: process.execPath, args: [script, '{}'] } } }));
    await h.serverState('stubborn', 'ready');
    const pid = await pidOf(h, 'stubborn');
    await h.dispose();
    expect(isAlive(pid)).toBe(false);
  });

  test('config changes add, remove and restart servers', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { one: fixtureServer() } }));
    await h.serverState('one', 'ready');
    const onePid = await pidOf(h, 'one');
    h.app.config.update({ mcpServers: { one: undefined, two: fixtureServer({ onlyMany: true, extraTools: ['t'] }) } });
    expect(mcpToolNames(h, 'one')).toEqual([]);
    await h.serverState('two', 'ready');
    expect(mcpToolNames(h, 'two')).toEqual(['mcp__two__t']);
    await waitFor(() => !isAlive(onePid), { what: 'the removed server to exit' });
    // A changed entry restarts the server; deferred now applies.
    h.app.config.update({ mcpServers: { two: fixtureServer({ onlyMany: true, extraTools: ['t'] }, { deferred: true }) } });
    await waitFor(() => h.agent.registry.get('mcp__two__t')?.disclosure === 'deferred', { what: 'the tool to be deferred' });
  });

  test('stdio servers start in the client working directory; a relative cwd resolves against it', async () => {
    fs.mkdirSync(nodePath.join(fx.dir, 'sub'));
    const script = nodePath.join(fx.dir, 'cwd.cjs');
    fs.writeFileSync(script, `require('node:fs').writeFileSync('started-here', process.cwd()); require(${JSON.stringify(FIXTURE_SERVER)});`);
    const h = fx.use(openMcpClientHarness({
      cwd: fx.dir,
      workingDirectory: fx.dir,
      servers: { top: { command: process.execPath, args: [script, '{}'] }, nested: { command: process.execPath, args: [script, '{}'], cwd: 'sub' } },
    }));
    await h.serverState('top', 'ready');
    await h.serverState('nested', 'ready');
    expect(fs.readFileSync(nodePath.join(fx.dir, 'started-here'), 'utf8')).toBe(fx.dir);
    expect(fs.readFileSync(nodePath.join(fx.dir, 'sub', 'started-here'), 'utf8')).toBe(nodePath.join(fx.dir, 'sub'));
  });

  test('the manager resolves from an App with no agent and connects on its own', async () => {
    const app = createApp({ features: [createMcpFeature()], config: { mcpServers: { fx: fixtureServer() } } });
    const manager = app.get(IMcpConnectionManager) as McpConnectionManager;
    await manager.whenSettled();
    expect(manager.server('fx')).toMatchObject({ state: 'ready', transport: 'stdio' });
    const answer = await manager.callTool('fx', 'echo', { text: 'direct' });
    expect(answer).toEqual({ content: [{ type: 'text', text: 'echo: direct' }] });
    await app.dispose();
  });
});
