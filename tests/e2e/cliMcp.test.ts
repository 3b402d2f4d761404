import * as nodePath from 'node:path';
import { runCliProcess } from '../helpers/cliProcess';
import { FIXTURE_SERVER, fixtureServer } from '../helpers/mcpFixtureServer';
import { useTempDir, writeFiles } from '../helpers/tempDir';

jest.setTimeout(60_000);

const dir = useTempDir();

const BAD_SCHEMA_WARNING =
  'warning: MCP tool "bad_schema" of server "fx" was not registered: its input schema is invalid (Invalid regular expression: /a\\-b/u: Invalid escape). The server\'s other tools work.\n';

describe('toolhost with mcpServers', () => {
  test('tools --json waits for the servers and lists their tools; problems are warnings on stderr', async () => {
    writeFiles(dir.path, {
      'toolhost.json': JSON.stringify({ mcpServers: { fx: fixtureServer(), bad: fixtureServer({ exitAtStart: 5 }), off: fixtureServer({}, { enabled: false }) } }),
    });
    const run = await runCliProcess(['tools', '--json'], { cwd: dir.path });
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<{ name: string; source: string; disclosure: string; description: string }>;
    expect(tools.find((t) => t.name === 'mcp__fx__echo')).toEqual({
      name: 'mcp__fx__echo',
      description: 'Echoes the text back.',
      parameters: expect.objectContaining({ type: 'object', required: ['text'] }),
      source: 'mcp',
      disclosure: 'inline',
    });
    expect(tools.filter((t) => t.name.startsWith('mcp__bad__') || t.name.startsWith('mcp__off__'))).toEqual([]);
    expect(tools.map((t) => t.name)).toContain('Read');
    const lines = run.stderr.split(/(?=^warning: )/m).sort();
    expect(lines).toEqual(
      [
        BAD_SCHEMA_WARNING,
        'warning: MCP server "bad" failed to start: the process closed the connection before initialize finished; the process exited with code 5; its last stderr output:\n    fixture: refusing to start (exitAtStart). Its tools are unavailable.\n',
      ].sort(),
    );
  });

  test('the table shows MCP tools with their source and disclosure', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ mcpServers: { lazy: fixtureServer({ onlyMany: true, extraTools: ['t1'] }, { deferred: true }) } }) });
    const run = await runCliProcess(['tools'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nmcp__lazy__t1 +mcp +deferred +Extra tool t1\n/);
    expect(run.stderr).toBe('');
  });

  test('run --yes calls MCP tools through the executor, waiting for a server that is still starting', async () => {
    writeFiles(dir.path, {
      'toolhost.json': JSON.stringify({ mcpServers: { fx: fixtureServer({ startDelayMs: 300 }) } }),
      'batch.json': JSON.stringify([
        { id: 'a', name: 'mcp__fx__echo', arguments: { text: 'from the CLI' } },
        { id: 'b', name: 'mcp__fx__add', arguments: { a: 1, b: 2 } },
      ]),
    });
    const run = await runCliProcess(['run', '--yes', '--json', 'batch.json'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      results: [
        { id: 'a', name: 'mcp__fx__echo', isError: false, outcome: 'executed', output: 'echo: from the CLI', truncated: false },
        { id: 'b', name: 'mcp__fx__add', isError: false, outcome: 'executed', output: '{"sum":3}', truncated: false, structuredContent: { sum: 3 } },
      ],
    });
  });

  test('run without --yes and no terminal: MCP calls are denied with the rule to add', async () => {
    writeFiles(dir.path, {
      'toolhost.json': JSON.stringify({ mcpServers: { fx: fixtureServer() } }),
      'batch.json': JSON.stringify([{ name: 'mcp__fx__echo', arguments: { text: 'x' } }]),
    });
    const run = await runCliProcess(['run', '--json', 'batch.json'], { cwd: dir.path });
    expect(run.code).toBe(0);
    const [result] = (JSON.parse(run.stdout) as { results: Array<{ outcome: string; output: string }> }).results;
    expect(result!.outcome).toBe('denied');
    expect(result!.output).toContain('add a rule such as "mcp__fx__echo" to approval.allow in toolhost.json, or run toolhost with --yes');
  });

  test('stdio servers start in the workspace (--cwd)', async () => {
    // A relative script path only resolves when the server starts in the workspace.
    writeFiles(dir.path, {
      'server.cjs': `require(${JSON.stringify(FIXTURE_SERVER)});`,
      'toolhost.json': JSON.stringify({ mcpServers: { local: { command: process.execPath, args: ['server.cjs', JSON.stringify({ onlyMany: true, extraTools: ['here'] })] } } }),
    });
    const run = await runCliProcess(['tools', '--json', '--cwd', dir.path], { cwd: nodePath.parse(dir.path).root });
    expect(run.stderr).toBe('');
    expect((JSON.parse(run.stdout) as Array<{ name: string }>).map((t) => t.name)).toContain('mcp__local__here');
  });

  test('a bad mcpServers entry is a usage error naming its key path', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ mcpServers: { gh: { url: 'http://x', command: 'y' } } }) });
    const run = await runCliProcess(['tools'], { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/- mcpServers\.gh\.url: give either "command" \(stdio\) or "url" \(Streamable HTTP\), not both\n$/);
  });
});
