// `import x = require()` gives the module objects themselves, whose functions jest can spy on.
import childProcess = require('node:child_process');
import fs = require('node:fs');
import type { McpCallToolAnswer } from '../../../../src/features/mcp/client/callResult';
import { Emitter } from '../../../../src/base/event';
import { type IMcpConnectionManager, type McpCallOptions, McpCallError, type McpToolDefinition } from '../../../../src/features/mcp/client/mcpConnections';
import { McpTool } from '../../../../src/features/mcp/client/mcpTool';
import type { RunnableToolExecution, ToolUpdate } from '../../../../src/tool/contract';

const definition: McpToolDefinition = {
  name: 'do.thing',
  description: 'Does a thing.',
  inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
  readOnly: false,
};

/** A connection manager whose callTool is scripted (the real one is tested against real servers). */
function scripted(answer: (options: McpCallOptions | undefined) => Promise<McpCallToolAnswer>): IMcpConnectionManager & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    servers: [],
    server: () => undefined,
    onDidChangeServer: new Emitter<never>().event,
    onWarning: new Emitter<never>().event,
    callTool: (server, tool, args, options) => {
      calls.push([server, tool, args]);
      return answer(options);
    },
    restart: async () => undefined,
    whenSettled: async () => undefined,
    dispose: async () => undefined,
  };
}

function resolve(tool: McpTool, input: Record<string, unknown>): RunnableToolExecution {
  return tool.resolveExecution(input) as RunnableToolExecution;
}

function context(signal = new AbortController().signal, updates: ToolUpdate[] = []) {
  return { toolCallId: 'c1', signal, metadata: {}, onUpdate: (u: ToolUpdate) => void updates.push(u) };
}

describe('McpTool', () => {
  test('resolveExecution touches no file and starts no process', () => {
    const spies = [
      ...(['openSync', 'readFileSync', 'writeFileSync', 'readdirSync'] as const).map((f) => jest.spyOn(fs, f)),
      ...(['spawn', 'exec', 'execFile'] as const).map((f) => jest.spyOn(childProcess, f)),
    ];
    try {
      const manager = scripted(async () => ({ content: [] }));
      const execution = resolve(new McpTool('mcp__s__do_thing', 's', definition, 'stdio', manager), { x: 1 });
      expect(execution).toMatchObject({ accesses: [{ kind: 'all' }], approvalRule: 'mcp__s__do_thing', description: 'Calling do.thing on MCP server "s"' });
      expect(manager.calls).toEqual([]);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  test('calls the original name with the arguments and forwards progress', async () => {
    const manager = scripted(async (options) => {
      options?.onProgress?.({ progress: 1, total: 2, message: 'half' });
      options?.onProgress?.({ progress: 2 });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    const updates: ToolUpdate[] = [];
    const result = await resolve(new McpTool('mcp__s__do_thing', 's', definition, 'http', manager), { x: 1 }).execute(context(undefined, updates));
    expect(manager.calls).toEqual([['s', 'do.thing', { x: 1 }]]);
    expect(result).toEqual({ output: [{ type: 'text', text: 'ok' }] });
    expect(updates).toEqual([
      { kind: 'progress', progress: 1, total: 2, text: 'half' },
      { kind: 'progress', progress: 2 },
    ]);
  });

  test.each([
    ['timeout', 'the server was too slow'],
    ['not_ready', 'the server is starting'],
    ['connection_lost', 'the server exited'],
    ['error', 'the server said no'],
  ] as const)('a %s error becomes an error result with its message', async (kind, message) => {
    const manager = scripted(async () => {
      throw new McpCallError(kind, message);
    });
    await expect(resolve(new McpTool('mcp__s__do_thing', 's', definition, 'stdio', manager), {}).execute(context())).resolves.toEqual({
      output: message,
      isError: true,
    });
  });

  test('an abort is thrown as an AbortError (the executor reports the call as aborted)', async () => {
    const manager = scripted(async () => {
      throw new McpCallError('aborted', 'aborted');
    });
    await expect(resolve(new McpTool('mcp__s__do_thing', 's', definition, 'stdio', manager), {}).execute(context())).rejects.toMatchObject({ name: 'AbortError' });
  });
});
