import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { IAgentMcpService } from '../../../../src/features/mcp/client/agentMcp';
import type { ToolProgressEvent } from '../../../../src/services/executor/toolExecutor';
import { IAgentToolRegistryService } from '../../../../src/services/toolRegistry/toolRegistry';
import { useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { mcpToolNames, openMcpClientHarness, textOf } from '../../../helpers/mcpClientHarness';
import { fixtureServer } from '../../../helpers/mcpFixtureServer';
import { isAlive } from '../../../helpers/processes';

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-' });


const FIXTURE_TOOLS = [
  'add',
  'add_tool',
  'audio',
  'crash',
  'echo',
  'fail',
  'hang',
  'image',
  'pid',
  'remove_tool',
  'resource',
  'slow',
  'stats',
  'structured_only',
  'throws',
];

describe('a stdio MCP server as a tool source', () => {
  test("registers a ready server's tools under qualified names, source mcp, owner mcp:<server>", async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    expect(mcpToolNames(h)).toEqual(FIXTURE_TOOLS.map((t) => `mcp__fx__${t}`));
    const echo = h.agent.registry.get('mcp__fx__echo')!;
    expect({ source: echo.source, owner: echo.owner, disclosure: echo.disclosure }).toEqual({ source: 'mcp', owner: 'mcp:fx', disclosure: 'inline' });
    expect(echo.tool.description).toBe('Echoes the text back.');
    expect(echo.tool.parameters).toEqual({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    const mcp = h.agent.get(IAgentMcpService);
    expect(mcp.lookup('mcp__fx__echo')).toMatchObject({ qualifiedName: 'mcp__fx__echo', server: 'fx', tool: 'echo', disclosure: 'inline' });
    expect(mcp.servers.map((s) => [s.name, s.state, s.transport, s.serverInfo])).toEqual([['fx', 'ready', 'stdio', { name: 'fixture', version: '1.0.0' }]]);
  });

  test('calls go through the executor to the server under the original name', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { 'my server': fixtureServer({ extraTools: ['do.thing'] }) } }));
    await h.serverState('my server', 'ready');
    const result = await h.call('mcp__my_server__do_thing', { text: 'x' });
    expect(result).toMatchObject({ name: 'mcp__my_server__do_thing', output: 'do.thing: x', isError: false, outcome: 'executed' });
    expect(await h.call('mcp__my_server__echo', { text: 'hi' })).toMatchObject({ output: 'echo: hi', isError: false, outcome: 'executed' });
  });

  test('arguments are validated (and losslessly coerced) against the server schema like any tool', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    expect(await h.call('mcp__fx__echo', {})).toMatchObject({
      output: 'Invalid args for tool "mcp__fx__echo": missing required property "text"',
      isError: true,
      outcome: 'rejected',
    });
    expect(await h.call('mcp__fx__add', { a: 1, b: '2' })).toMatchObject({ output: '{"sum":3}', structuredContent: { sum: 3 }, outcome: 'executed' });
  });

  test('results: images, audio, resources, structured content, isError and a throwing handler', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    const [image, audio, resource, structured, failed, thrown] = await h.agent.executor.execute([
      { id: '1', name: 'mcp__fx__image', arguments: '{}' },
      { id: '2', name: 'mcp__fx__audio', arguments: '{}' },
      { id: '3', name: 'mcp__fx__resource', arguments: '{}' },
      { id: '4', name: 'mcp__fx__structured_only', arguments: '{}' },
      { id: '5', name: 'mcp__fx__fail', arguments: '{"message":"boom"}' },
      { id: '6', name: 'mcp__fx__throws', arguments: '{}' },
    ]);
    expect(image!.output).toEqual([
      { type: 'text', text: 'a red pixel' },
      { type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
    ]);
    expect(audio!.output).toEqual([
      { type: 'text', text: 'Tool returned non-text content.' },
      { type: 'audio', mimeType: 'audio/wav', data: Buffer.from('RIFF').toString('base64') },
    ]);
    expect(resource!.output).toBe(
      '[resource file:///notes.txt, text/plain]\nnote body\n' +
        '[binary resource file:///data.bin, application/octet-stream, 3 bytes, not shown]\n' +
        '[resource link other.md: file:///other.md (text/markdown; Another file)]',
    );
    expect(structured).toMatchObject({ output: '{\n  "ok": true\n}', structuredContent: { ok: true }, isError: false });
    expect(failed).toMatchObject({ output: 'failed: boom', isError: true, outcome: 'executed' });
    expect(thrown).toMatchObject({ output: 'kaboom', isError: true, outcome: 'executed' });
  });

  test('resolveExecution: accesses from readOnlyHint, the qualified name as approval rule, a generic display', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    const echo = await h.agent.registry.get('mcp__fx__echo')!.tool.resolveExecution({ text: 'a' } as never);
    const add = await h.agent.registry.get('mcp__fx__add')!.tool.resolveExecution({ a: 1, b: 2 } as never);
    expect(echo).toMatchObject({
      accesses: [{ kind: 'process' }],
      approvalRule: 'mcp__fx__echo',
      description: 'Calling echo on MCP server "fx"',
      display: { kind: 'generic', summary: 'echo on MCP server "fx"', detail: { text: 'a' } },
    });
    expect(add).toMatchObject({ accesses: [{ kind: 'all' }], approvalRule: 'mcp__fx__add' });
    const matches = (add as { matchesRule(args: string): boolean }).matchesRule;
    expect([matches('*"a":1*'), matches('*"a":2*')]).toEqual([true, false]);
  });

  test('MCP calls need approval: with no host and no rule they are denied with a rule to add', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() }, config: { approval: { allow: [] } } }));
    await h.serverState('fx', 'ready');
    const result = await h.call('mcp__fx__echo', { text: 'a' });
    expect(result.outcome).toBe('denied');
    expect(textOf(result.output)).toContain('add a rule such as "mcp__fx__echo" to approval.allow');
  });

  test('an agent created while a server is still starting gets its tools later, through registry events', async () => {
    const gate = nodePath.join(fx.dir, 'release-slow');
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fast: fixtureServer({ extraTools: ['ping'], onlyMany: true }), slow: fixtureServer({ waitForFile: gate }) } }));
    const added: string[] = [];
    h.agent.registry.onDidChange((change) => added.push(...change.added));
    // Creating the App and the agent did not wait for either server.
    expect(h.manager.server('slow')!.state).toBe('connecting');
    await h.serverState('fast', 'ready');
    expect(mcpToolNames(h)).toEqual(['mcp__fast__ping']);
    expect(h.manager.server('slow')!.state).toBe('connecting');
    const early = await h.call('mcp__slow__echo', { text: 'x' });
    expect(early).toMatchObject({
      output: 'Tool "mcp__slow__echo" is not available yet: MCP server "slow" is still starting. Its tools appear when it is ready; try again shortly.',
      outcome: 'rejected',
    });
    fs.writeFileSync(gate, '');
    await h.serverState('slow', 'ready');
    expect(added[0]).toBe('mcp__fast__ping');
    expect(added.slice(1).sort()).toEqual(FIXTURE_TOOLS.map((t) => `mcp__slow__${t}`));
    expect(await h.call('mcp__slow__echo', { text: 'x' })).toMatchObject({ output: 'echo: x' });
  });

  test('an agent created after the server is ready has its tools at once; each agent owns its registrations', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    const second = h.app.createAgent({ cwd: fx.dir });
    expect(second.get(IAgentToolRegistryService).has('mcp__fx__echo')).toBe(true);
    const pid = Number(textOf((await h.call('mcp__fx__pid', {})).output));
    await h.agent.dispose();
    // The other agent and the shared connection are unaffected.
    const [result] = await second.executor.execute([{ id: 'a', name: 'mcp__fx__echo', arguments: '{"text":"still here"}' }]);
    expect(result!.output).toBe('echo: still here');
    expect(isAlive(pid)).toBe(true);
    await second.dispose();
    expect(h.manager.server('fx')!.state).toBe('ready');
  });

  test('notifications/tools/list_changed refreshes the tools: added and removed', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    const changes: Array<{ added: readonly string[]; removed: readonly string[] }> = [];
    h.agent.get(IAgentMcpService).onDidChangeTools((c) => changes.push(c));
    expect(await h.call('mcp__fx__add_tool', { name: 'fresh' })).toMatchObject({ output: 'added fresh' });
    await waitFor(() => h.agent.registry.has('mcp__fx__fresh'), { what: 'the new tool' });
    expect(await h.call('mcp__fx__fresh', { text: 'new' })).toMatchObject({ output: 'fresh: new' });
    expect(await h.call('mcp__fx__remove_tool', { name: 'fresh' })).toMatchObject({ output: 'removed fresh' });
    await waitFor(() => !h.agent.registry.has('mcp__fx__fresh'), { what: 'the tool to go' });
    expect(changes).toEqual([
      { added: ['mcp__fx__fresh'], removed: [] },
      { added: [], removed: ['mcp__fx__fresh'] },
    ]);
    expect(await h.call('mcp__fx__fresh', { text: 'new' })).toMatchObject({ outcome: 'rejected', isError: true });
    // Unchanged tools kept their registration (no churn).
    expect(mcpToolNames(h)).toEqual(FIXTURE_TOOLS.map((t) => `mcp__fx__${t}`));
  });

  test('progress notifications arrive as tool progress and keep a call alive past timeoutMs', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({}, { timeoutMs: 1_000 }) } }));
    await h.serverState('fx', 'ready');
    const progress: ToolProgressEvent[] = [];
    h.agent.executor.onToolProgress((e) => progress.push(e));
    // 8 steps of 250 ms: 2 s in all, twice the timeout, but never 1 s without progress.
    const result = await h.call('mcp__fx__slow', { steps: 8, stepMs: 250 }, { id: 'slow' });
    expect(result).toMatchObject({ output: 'done after 8 steps', isError: false, outcome: 'executed' });
    // The SDK may drop the last notification when it arrives together with the answer.
    expect(progress.length).toBeGreaterThanOrEqual(7);
    progress.forEach((e, i) => {
      expect(e).toEqual({ toolCallId: 'slow', name: 'mcp__fx__slow', update: { kind: 'progress', progress: i + 1, total: 8, text: `step ${i + 1}` } });
    });
  });

  test('a call with no answer and no progress times out after timeoutMs, and the server is told to cancel', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({}, { timeoutMs: 400 }) } }));
    await h.serverState('fx', 'ready');
    expect(await h.call('mcp__fx__hang', {})).toMatchObject({
      output:
        'MCP tool "hang" on server "fx" did not answer within 400 ms (no progress either), so the request was cancelled. The limit is mcpServers.fx.timeoutMs.',
      isError: true,
      outcome: 'executed',
    });
    const stats = async () => JSON.parse(textOf((await h.call('mcp__fx__stats', {})).output)) as { cancelled: number };
    for (let i = 0; (await stats()).cancelled < 1; i++) {
      if (i > 500) throw new Error('the server never saw the cancellation');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test("the batch's abort signal cancels the request on the server", async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    const controller = new AbortController();
    h.agent.executor.onToolProgress(() => controller.abort());
    const result = await h.call('mcp__fx__slow', { steps: 10_000, stepMs: 20 }, { signal: controller.signal });
    expect(result).toMatchObject({ output: 'Tool "mcp__fx__slow" was aborted', isError: true, outcome: 'aborted' });
    for (let i = 0; ; i++) {
      const stats = JSON.parse(textOf((await h.call('mcp__fx__stats', {})).output)) as { cancelled: number };
      if (stats.cancelled === 1) break;
      if (i > 500) throw new Error('the server never saw the cancellation');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test('configured deferred: the tools are registered with disclosure deferred', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { lazy: fixtureServer({ extraTools: ['t1'], onlyMany: true }, { deferred: true }) } }));
    await h.serverState('lazy', 'ready');
    expect(h.agent.registry.get('mcp__lazy__t1')).toMatchObject({ source: 'mcp', disclosure: 'deferred', owner: 'mcp:lazy' });
    expect(h.agent.get(IAgentMcpService).tools.map((t) => [t.qualifiedName, t.disclosure])).toEqual([['mcp__lazy__t1', 'deferred']]);
  });

  test('a disabled server is not started; calling its tools says so', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { off: fixtureServer({}, { enabled: false }) } }));
    expect(h.manager.server('off')).toMatchObject({ state: 'disabled', tools: [] });
    expect(h.manager.pidOf('off')).toBeUndefined();
    expect((await h.call('mcp__off__echo', { text: 'a' })).output).toBe(
      'Tool "mcp__off__echo" is unavailable: MCP server "off" is disabled in the configuration.',
    );
  });
});

describe('tool descriptions and names from the server', () => {
  test('a long description is cut with a marker; a missing one falls back to the title, then to a sentence', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { odd: fixtureServer({ onlyMany: true, oddTools: true }) } }));
    await h.serverState('odd', 'ready');
    const verbose = h.agent.registry.get('mcp__odd__verbose')!.tool.description;
    expect(verbose).toHaveLength(2048);
    expect(verbose).toBe('d'.repeat(2048 - '… (description truncated)'.length) + '… (description truncated)');
    expect(h.agent.registry.get('mcp__odd__titled')!.tool.description).toBe('A Title Only');
    expect(h.agent.registry.get('mcp__odd__untitled')!.tool.description).toBe('The "untitled" tool of MCP server "odd".');
    expect(h.warnings).toEqual([
      {
        code: 'invalid_tool',
        server: 'odd',
        tool: '???',
        message: 'MCP tool "???" of server "odd" was not registered: its name has no letter, digit, "_" or "-" to build a tool name from. The server\'s other tools work.',
      },
    ]);
    expect(mcpToolNames(h)).toEqual(['mcp__odd__titled', 'mcp__odd__untitled', 'mcp__odd__verbose']);
  });
});

describe('tool policy', () => {
  test('tools the policy excludes are not registered, and come back when the policy changes', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() }, config: { tools: { disabled: ['mcp__fx__e*', 'mcp__fx__add'] } } }));
    await h.serverState('fx', 'ready');
    expect(mcpToolNames(h)).toEqual(FIXTURE_TOOLS.filter((t) => t !== 'echo' && t !== 'add').map((t) => `mcp__fx__${t}`));
    expect(await h.call('mcp__fx__echo', { text: 'a' })).toMatchObject({
      output: 'Tool "mcp__fx__echo" is disabled by the active tool policy',
      outcome: 'rejected',
    });
    h.app.config.update({ tools: { disabled: [] } });
    expect(h.agent.registry.has('mcp__fx__echo')).toBe(true);
    expect(await h.call('mcp__fx__echo', { text: 'a' })).toMatchObject({ output: 'echo: a' });
  });

  test('a profile allowlist with an MCP glob admits only matching tools', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() }, config: { profile: 'narrow', profiles: { narrow: { tools: ['mcp__fx__ec*', 'Read'] } } } }));
    await h.serverState('fx', 'ready');
    expect(mcpToolNames(h)).toEqual(['mcp__fx__echo']);
  });
});

describe('collisions', () => {
  test('same_server: the later of two tools with the same qualified name is dropped and reported', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({ onlyMany: true, extraTools: ['x.y', 'x_y', 'z'] }) } }));
    await h.serverState('fx', 'ready');
    expect(mcpToolNames(h)).toEqual(['mcp__fx__x_y', 'mcp__fx__z']);
    expect(await h.call('mcp__fx__x_y', { text: 't' })).toMatchObject({ output: 'x.y: t' });
    const warnings = h.warnings.filter((w) => w.code === 'tool_collision');
    expect(warnings).toEqual([
      {
        code: 'tool_collision',
        server: 'fx',
        tool: 'x_y',
        message: 'MCP tool "x_y" of server "fx" was not registered: its name mcp__fx__x_y is already used by tool "x.y" of the same server.',
        collision: { qualifiedName: 'mcp__fx__x_y', server: 'fx', tool: 'x_y', collidesWith: { kind: 'same_server', tool: 'x.y' } },
      },
    ]);
    expect(h.agent.get(IAgentMcpService).collisions).toEqual([warnings[0]!.collision]);
  });

  test('other_server: the server whose name sorts first wins, whichever connected first', async () => {
    const gate = nodePath.join(fx.dir, 'release');
    // "a.b" and "a_b" both become mcp__a_b__…; "a.b" sorts first but is held back until "a_b" is ready.
    const h = fx.use(openMcpClientHarness({
      cwd: fx.dir,
      servers: {
        'a.b': fixtureServer({ onlyMany: true, extraTools: ['t'], waitForFile: gate }),
        a_b: fixtureServer({ onlyMany: true, extraTools: ['t', 'only_here'] }),
      },
    }));
    await h.serverState('a_b', 'ready');
    expect(h.agent.registry.get('mcp__a_b__t')!.owner).toBe('mcp:a_b');
    fs.writeFileSync(gate, '');
    await h.serverState('a.b', 'ready');
    expect(h.agent.registry.get('mcp__a_b__t')!.owner).toBe('mcp:a.b');
    expect(h.agent.registry.get('mcp__a_b__only_here')!.owner).toBe('mcp:a_b');
    expect(h.warnings.filter((w) => w.code === 'tool_collision').map((w) => w.message)).toEqual([
      'MCP tool "t" of server "a_b" was not registered: its name mcp__a_b__t is already used by tool "t" of server "a.b" (servers are resolved in name order; rename one of them in mcpServers).',
    ]);
    // When the winner goes, the other server's tool takes the name.
    h.app.config.update({ mcpServers: { 'a.b': undefined } });
    await waitFor(() => h.agent.registry.get('mcp__a_b__t')?.owner === 'mcp:a_b', { what: 'the name to pass to a_b' });
  });

  test('other_source: a name held by another tool source is reported, and taken when it is released', async () => {
    const gate = nodePath.join(fx.dir, 'release');
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer({ onlyMany: true, extraTools: ['t'], waitForFile: gate }) } }));
    const squatter = { name: 'mcp__fx__t', description: 'A user tool', parameters: { type: 'object' }, resolveExecution: () => ({ isError: true as const, output: 'user' }) };
    const held = h.agent.registry.register(squatter, { source: 'user', owner: 'user' });
    fs.writeFileSync(gate, '');
    await h.serverState('fx', 'ready');
    expect(h.agent.registry.get('mcp__fx__t')!.source).toBe('user');
    expect(h.warnings.map((w) => w.message)).toEqual([
      'MCP tool "t" of server "fx" was not registered: its name mcp__fx__t is already taken by user (a user tool).',
    ]);
    expect(held.ok).toBe(true);
    if (held.ok) held.registration.dispose();
    expect(h.agent.registry.get('mcp__fx__t')).toMatchObject({ source: 'mcp', owner: 'mcp:fx' });
  });
});

describe('invalid schemas', () => {
  test('a schema Ajv cannot compile: that tool is left out with a warning; the others work', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { fx: fixtureServer() } }));
    await h.serverState('fx', 'ready');
    expect(h.agent.registry.has('mcp__fx__bad_schema')).toBe(false);
    expect(h.warnings).toEqual([
      {
        code: 'invalid_tool',
        server: 'fx',
        tool: 'bad_schema',
        message:
          'MCP tool "bad_schema" of server "fx" was not registered: its input schema is invalid (Invalid regular expression: /a\\-b/u: Invalid escape). The server\'s other tools work.',
      },
    ]);
    expect((await h.call('mcp__fx__bad_schema', { value: 'a-b' })).output).toBe(
      'Tool "mcp__fx__bad_schema" (tool "bad_schema" of MCP server "fx") is unavailable: its input schema is invalid (Invalid regular expression: /a\\-b/u: Invalid escape). The server\'s other tools work.',
    );
    expect(await h.call('mcp__fx__echo', { text: 'fine' })).toMatchObject({ output: 'echo: fine' });
  });
});
