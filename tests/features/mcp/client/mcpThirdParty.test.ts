import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { ToolProgressEvent } from '../../../../src/services/executor/toolExecutor';
import { useAgent } from '../../../helpers/agentHarness';
import { openMcpClientHarness } from '../../../helpers/mcpClientHarness';

// Real servers from npm (devDependencies), started with node over stdio: no download, no network.
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

jest.setTimeout(60_000);

const fx = useAgent({ prefix: 'toolhost-mcp-npm-' });

describe('@modelcontextprotocol/server-everything', () => {
  test('text, image, structured content and progress through the executor', async () => {
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
    await h.serverState('everything', 'ready');
    expect(h.warnings).toEqual([]);
    expect(h.agent.registry.list().map((r) => r.tool.name)).toEqual(
      expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum', 'mcp__everything__get-tiny-image', 'mcp__everything__trigger-long-running-operation']),
    );
    expect(await h.call('mcp__everything__echo', { message: 'hi' })).toMatchObject({ output: 'Echo: hi', isError: false, outcome: 'executed' });
    expect(await h.call('mcp__everything__get-sum', { a: 2, b: 3 })).toMatchObject({ output: 'The sum of 2 and 3 is 5.' });
    const image = await h.call('mcp__everything__get-tiny-image', {});
    expect(image.output).toEqual(
      expect.arrayContaining([{ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) }, { type: 'text', text: "Here's the image you requested:" }]),
    );
    const weather = await h.call('mcp__everything__get-structured-content', { location: 'New York' });
    expect(weather.structuredContent).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
    const progress: ToolProgressEvent[] = [];
    h.agent.executor.onToolProgress((e) => progress.push(e));
    expect(await h.call('mcp__everything__trigger-long-running-operation', { duration: 0.3, steps: 3 })).toMatchObject({
      output: 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.',
    });
    expect(progress[0]!.update).toEqual({ kind: 'progress', progress: 1, total: 3 });
  });
});

describe('@modelcontextprotocol/server-filesystem', () => {
  test('reads and writes inside its allowed directory; its refusal is an error result', async () => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'hello\nworld\n');
    const h = fx.use(openMcpClientHarness({ cwd: fx.dir, servers: { files: { command: process.execPath, args: [FILESYSTEM, fx.dir] } } }));
    await h.serverState('files', 'ready');
    expect(await h.call('mcp__files__read_text_file', { path: nodePath.join(fx.dir, 'a.txt') })).toMatchObject({
      output: 'hello\nworld\n',
      structuredContent: { content: 'hello\nworld\n' },
      isError: false,
    });
    expect(await h.call('mcp__files__write_file', { path: nodePath.join(fx.dir, 'b.txt'), content: 'new' })).toMatchObject({ isError: false });
    expect(fs.readFileSync(nodePath.join(fx.dir, 'b.txt'), 'utf8')).toBe('new');
    expect(await h.call('mcp__files__list_directory', { path: fx.dir })).toMatchObject({ output: '[FILE] a.txt\n[FILE] b.txt' });
    const refused = await h.call('mcp__files__read_text_file', { path: '/etc/hostname' });
    expect(refused).toMatchObject({ isError: true, outcome: 'executed' });
    expect(refused.output).toMatch(/^Access denied - path outside allowed directories/);
    // Its annotations decide the accesses: read_text_file is read-only, write_file is not.
    const read = await h.agent.registry.get('mcp__files__read_text_file')!.tool.resolveExecution({ path: 'x' } as never);
    const write = await h.agent.registry.get('mcp__files__write_file')!.tool.resolveExecution({ path: 'x', content: '' } as never);
    expect([read, write]).toMatchObject([{ accesses: [{ kind: 'process' }] }, { accesses: [{ kind: 'all' }] }]);
  });
});
