import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { type CallToolResult, CallToolResultSchema, ListToolsResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Feature } from '../../../../src/di/feature';
import { IAgentUserToolService } from '../../../../src/services/userTools/userTools';
import { ToolAccesses } from '../../../../src/tool/accesses';
import { toolError } from '../../../../src/tool/contract';
import { useAgent } from '../../../helpers/agentHarness';
import { deferred, waitFor } from '../../../helpers/async';
import { FakeHost } from '../../../helpers/fakeHost';
import { callResultText, type McpServeHarness, openMcpServeHarness } from '../../../helpers/mcpServeHarness';
import { testTool } from '../../../helpers/testTools';

const fx = useAgent({ prefix: 'toolhost-mcp-' });
/** The current test's harness; the fixture disposes it. */
let h: McpServeHarness | undefined;

const TextSchema = z.object({ text: z.string().describe('What to echo.') });
const echoTool = testTool<{ text: string }>('Echo', {
  schema: TextSchema,
  accesses: () => ToolAccesses.none(),
  approval: 'auto',
  execute: (input) => ({ output: `echo: ${input.text}` }),
});


async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await h!.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('tools/list', () => {
  test('serves the active tools with their description, an object input schema without $schema, and annotations', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, builtins: true, tools: [echoTool] }));
    const { tools } = await h.client.listTools();
    // NotifyUser: a connected client takes log messages. AskUserQuestion: absent, this client has no elicitation.
    expect(tools.map((t) => t.name)).toEqual(['Bash', 'CreateGoal', 'Echo', 'Edit', 'ExitPlanMode', 'FetchURL', 'GetGoal', 'Glob', 'Grep', 'NotifyUser', 'Read', 'ReadMediaFile', 'SetGoalBudget', 'TaskList', 'TaskOutput', 'TaskStop', 'TodoList', 'UpdateGoal', 'WaitFor', 'Write']);
    expect(tools.find((t) => t.name === 'Echo')).toEqual({
      name: 'Echo',
      description: 'Test tool Echo.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'What to echo.' } },
        required: ['text'],
        additionalProperties: false,
      },
    });
    const read = tools.find((t) => t.name === 'Read')!;
    expect(read.description).toBe(h.agent.registry.get('Read')!.tool.description);
    expect(read.inputSchema).not.toHaveProperty('$schema');
    expect(read.inputSchema.required).toEqual(['path']);
    expect(read.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tools.find((t) => t.name === 'Write')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(tools.find((t) => t.name === 'Bash')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  test('the server declares tools with listChanged and logging (NotifyUser) and gives instructions naming the workspace', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(h.client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(h.client.getServerVersion()?.name).toBe('toolhost');
    expect(h.client.getInstructions()).toContain(`working in ${fx.dir}. Relative paths resolve against that directory`);
  });
});

describe('malformed requests get -32602 and a sentence', () => {
  async function errorOf(request: Promise<unknown>): Promise<[number, string]> {
    try {
      await request;
    } catch (error) {
      const { code, message } = error as { code: number; message: string };
      return [code, message];
    }
    throw new Error('the request succeeded');
  }

  test('a tools/list cursor (this server issues none)', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(await errorOf(h.client.request({ method: 'tools/list', params: { cursor: 'page-2' } }, ListToolsResultSchema))).toEqual([
      -32602,
      'MCP error -32602: Invalid cursor: this server returns its whole tool list in one page and issues no cursors; list again without one.',
    ]);
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['Echo']);
  });

  test.each<[string, unknown, string]>([
    ['a string', 'echo me', 'a string'],
    ['a number', 5, 'a number'],
    ['an array', ['x'], 'an array'],
    ['null', null, 'null'],
  ])('tools/call arguments that are %s', async (_name, args, got) => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(await errorOf(h.client.request({ method: 'tools/call', params: { name: 'Echo', arguments: args } } as never, CallToolResultSchema))).toEqual([
      -32602,
      `MCP error -32602: tools/call "arguments" must be an object of the tool's parameters (e.g. {"path": "README.md"}), not ${got}.`,
    ]);
    expect(callResultText(await call('Echo', { text: 'still serving' }))).toBe('echo: still serving');
  });

  test('tools/call without a name', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(await errorOf(h.client.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema))).toEqual([
      -32602,
      'MCP error -32602: tools/call needs "name": the name of a tool, as tools/list gives it.',
    ]);
  });
});

describe('tools/call runs the executor pipeline', () => {
  test('a result becomes text content with the outcome in _meta', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(await call('Echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'echo: hi' }], _meta: { 'toolhost/outcome': 'executed' } });
  });

  test('unknown tools and invalid arguments are error results with the executor text', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    expect(await call('Ecko', { text: 'x' })).toEqual({
      content: [{ type: 'text', text: 'Tool "Ecko" not found. Did you mean "Echo"?' }],
      isError: true,
      _meta: { 'toolhost/outcome': 'rejected' },
    });
    const invalid = await call('Echo', { text: 5, extra: true });
    expect(invalid.isError).toBe(true);
    expect(callResultText(invalid)).toMatch(/^Invalid args for tool "Echo": /);
  });

  test('media parts, structured content and errors thrown by a tool are mapped', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    const tools = [
      testTool('Picture', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: () => ({ output: [{ type: 'text', text: 'a picture' }, { type: 'image', data: png, mimeType: 'image/png' }], structuredContent: { width: 1, height: 1 } }),
      }),
      testTool('Boom', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: () => {
          throw new Error('kaput');
        },
      }),
      testTool('Refuses', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => toolError('Nothing to do here; use Echo instead.') }),
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools }));
    expect(await call('Picture')).toEqual({
      content: [
        { type: 'text', text: 'a picture' },
        { type: 'image', data: png, mimeType: 'image/png' },
      ],
      structuredContent: { width: 1, height: 1 },
      _meta: { 'toolhost/outcome': 'executed' },
    });
    expect(await call('Boom')).toEqual({ content: [{ type: 'text', text: 'Tool "Boom" failed: kaput' }], isError: true, _meta: { 'toolhost/outcome': 'executed' } });
    expect(await call('Refuses')).toEqual({
      content: [{ type: 'text', text: 'Nothing to do here; use Echo instead.' }],
      isError: true,
      _meta: { 'toolhost/outcome': 'executed' },
    });
    // The server is still serving.
    expect(callResultText(await call('Picture'))).toBe('a picture\n[image]');
  });

  test('output over the budget is spilled to a file; the result points at it and _meta names it', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${'x'.repeat(20)}`).join('\n');
    const tools = [testTool('Big', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => ({ output: big }) })];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools, config: { toolResult: { maxChars: 5000 } }, dataDir: nodePath.join(fx.dir, 'data') }));
    const result = await call('Big');
    const path = result._meta?.['toolhost/outputPath'] as string;
    expect(path.startsWith(nodePath.join(fx.dir, 'data', 'tool-results') + nodePath.sep)).toBe(true);
    expect(fs.readFileSync(path, 'utf8')).toBe(big);
    expect(result.isError).toBeUndefined();
    expect(callResultText(result)).toContain(`output_path: ${path}`);
    expect(callResultText(result)).toContain('line 1 xxxxxxxxxxxxxxxxxxxx');
    expect(callResultText(result).length).toBeLessThan(big.length);
  });
});

describe('approvals', () => {
  // Writes a file in the workspace; its approval rule is Touch(<path>), matched on the path.
  const writeTool = testTool<{ path?: string }>('Touch', {
    resolve: (input) => ({
      accesses: [ToolAccesses.writeFile(nodePath.resolve(fx.dir, input.path ?? 'x'))],
      description: `Touching ${input.path}`,
      display: { kind: 'file_io', operation: 'write', path: input.path ?? 'x' },
      approvalRule: `Touch(${input.path})`,
      matchesRule: (ruleArgs) => ruleArgs === input.path,
      execute: async () => {
        fs.writeFileSync(nodePath.resolve(fx.dir, input.path!), 'touched');
        return { output: `touched ${input.path}` };
      },
    }),
  });

  test('without elicitation and without --yes, a call that needs approval is denied naming --yes and approval.allow', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool] }));
    expect(await call('Touch', { path: 'a.txt' })).toEqual({
      content: [
        {
          type: 'text',
          text:
            'Tool "Touch" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Touch(a.txt)" to approval.allow in toolhost.json, ' +
            'or start "toolhost mcp serve" with --yes to approve every call, or connect from an MCP client that supports elicitation. ' +
            'Do not retry the same call; choose a different approach or ask the user how to proceed.',
        },
      ],
      isError: true,
      _meta: { 'toolhost/outcome': 'denied' },
    });
    expect(fs.existsSync(nodePath.join(fx.dir, 'a.txt'))).toBe(false);
  });

  test('a config approval.allow rule approves it without asking', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool], config: { approval: { allow: ['Touch'] } } }));
    expect(callResultText(await call('Touch', { path: 'a.txt' }))).toBe('touched a.txt');
  });

  test('--yes approves it; approval.deny still wins', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool], approveAll: true, config: { approval: { deny: ['Touch(secret.txt)'] } } }));
    expect(callResultText(await call('Touch', { path: 'a.txt' }))).toBe('touched a.txt');
    const denied = await call('Touch', { path: 'secret.txt' });
    expect(denied._meta).toEqual({ 'toolhost/outcome': 'denied' });
    expect(callResultText(denied)).toMatch(/^Tool "Touch" was denied by the approval rule "Touch\(secret.txt\)" \(config approval.deny\)/);
  });

  test('a client with elicitation is asked; approve runs the call', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool], elicitation: () => ({ action: 'accept', content: { decision: 'approve' } }) }));
    expect(callResultText(await call('Touch', { path: 'a.txt' }))).toBe('touched a.txt');
    expect(h.elicitations).toHaveLength(1);
    const params = h.elicitations[0]!.params;
    expect(params.message).toBe(
      'Touch wants to run: Touching a.txt\n    write a.txt\nApprove this call? "Approve for this session" also allows Touch(a.txt) until the server stops.',
    );
    expect(params).toMatchObject({
      mode: 'form',
      requestedSchema: { type: 'object', required: ['decision'], properties: { decision: { type: 'string', enum: ['approve', 'approve_session', 'reject'] } } },
      _meta: { 'toolhost/approval': { toolName: 'Touch', args: { path: 'a.txt' }, approvalRule: 'Touch(a.txt)' } },
    });
    // Once approved means once.
    await call('Touch', { path: 'a.txt' });
    expect(h.elicitations).toHaveLength(2);
  });

  test('approve_session stores the rule: the same call is not asked again', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool], elicitation: () => ({ action: 'accept', content: { decision: 'approve_session' } }) }));
    expect(callResultText(await call('Touch', { path: 'a.txt' }))).toBe('touched a.txt');
    expect(callResultText(await call('Touch', { path: 'a.txt' }))).toBe('touched a.txt');
    expect(h.elicitations).toHaveLength(1);
    await call('Touch', { path: 'b.txt' });
    expect(h.elicitations).toHaveLength(2);
  });

  test.each<[string, { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> }, string]>([
    ['reject with a reason', { action: 'accept', content: { decision: 'reject', reason: 'use b.txt instead' } }, 'Reason: use b.txt instead'],
    ['decline', { action: 'decline' }, 'Reason: The user declined the approval request.'],
    ['cancel', { action: 'cancel' }, 'Reason: The user dismissed the approval request without deciding.'],
  ])('%s denies the call and tells the model why', async (_name, answer, reason) => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [writeTool], elicitation: () => answer }));
    const result = await call('Touch', { path: 'a.txt' });
    expect(result._meta).toEqual({ 'toolhost/outcome': 'denied' });
    expect(callResultText(result)).toBe(`Tool "Touch" was not run: the user rejected it. ${reason} Do not retry the same call; choose a different approach or ask the user how to proceed.`);
    expect(fs.existsSync(nodePath.join(fx.dir, 'a.txt'))).toBe(false);
  });

  test('an elicitation the client fails to answer denies the call and the server goes on', async () => {
    h = fx.use(await openMcpServeHarness({
      cwd: fx.dir,
      tools: [writeTool, echoTool],
      elicitation: () => {
        throw new Error('no UI');
      },
    }));
    const result = await call('Touch', { path: 'a.txt' });
    expect(result._meta).toEqual({ 'toolhost/outcome': 'denied' });
    expect(callResultText(result)).toMatch(/^Tool "Touch" was not run: the approval request failed \(MCP error -32603: no UI\)\./);
    expect(callResultText(await call('Echo', { text: 'still here' }))).toBe('echo: still here');
  });
});

describe('concurrency and order across requests', () => {
  test('requests run concurrently: a call can finish while an earlier one still runs', async () => {
    const release = deferred();
    const tools = [
      testTool('Slow', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: async () => (await release.promise, { output: 'slow done' }) }),
      echoTool,
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools }));
    const slow = call('Slow');
    await waitFor(() => h!.mcp.activeCalls === 1, { what: 'Slow to start', timeoutMs: 10_000 });
    expect(callResultText(await call('Echo', { text: 'meanwhile' }))).toBe('echo: meanwhile');
    release.resolve();
    expect(callResultText(await slow)).toBe('slow done');
  });

  function fileTool(name: string, events: string[], gates: Map<string, { promise: Promise<void> }>) {
    return testTool<{ id?: string; path?: string }>(name, {
      accesses: (input) => [ToolAccesses.writeFile(nodePath.join(fx.dir, input.path!))],
      execute: async (input) => {
        events.push(`start ${input.id}`);
        await gates.get(input.id!)?.promise;
        events.push(`end ${input.id}`);
        return { output: `${input.id} done` };
      },
    });
  }

  test('calls of different requests that write the same file run one after the other, in arrival order', async () => {
    const events: string[] = [];
    const gates = new Map([['first', deferred()]]);
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [fileTool('Put', events, gates)], approveAll: true }));
    const first = call('Put', { id: 'first', path: 'same.txt' });
    await waitFor(() => events.includes('start first'), { what: 'the first call to start', timeoutMs: 10_000 });
    const second = call('Put', { id: 'second', path: 'same.txt' });
    await waitFor(() => h!.mcp.callsWaitingForOrder === 1, { what: 'the second call to wait', timeoutMs: 10_000 });
    expect(events).toEqual(['start first']);
    gates.get('first')!.resolve();
    expect(callResultText(await first)).toBe('first done');
    expect(callResultText(await second)).toBe('second done');
    expect(events).toEqual(['start first', 'end first', 'start second', 'end second']);
  });

  test('a call resolved again to other files right before it runs waits for the calls of other requests on those files', async () => {
    const events: string[] = [];
    const gates = new Map([['first', deferred()]]);
    let resolutions = 0;
    // Its first resolution touches other.txt; the recheck right before it runs finds same.txt
    // (as when a symbolic link changed in between).
    const shifty = testTool<{ id?: string; path?: string }>('Shifty', {
      accesses: () => [ToolAccesses.writeFile(nodePath.join(fx.dir, resolutions++ === 0 ? 'other.txt' : 'same.txt'))],
      execute: async (input) => {
        events.push(`start ${input.id}`);
        events.push(`end ${input.id}`);
        return { output: `${input.id} done` };
      },
    });
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [fileTool('Put', events, gates), shifty], approveAll: true }));
    const first = call('Put', { id: 'first', path: 'same.txt' });
    await waitFor(() => events.includes('start first'), { what: 'the first call to start', timeoutMs: 10_000 });
    const moved = call('Shifty', { id: 'moved' });
    await waitFor(() => h!.mcp.callsWaitingForOrder === 1, { what: 'the re-resolved call to wait for same.txt', timeoutMs: 10_000 });
    expect(resolutions).toBe(2);
    expect(events).toEqual(['start first']);
    gates.get('first')!.resolve();
    expect(callResultText(await first)).toBe('first done');
    expect(callResultText(await moved)).toBe('moved done');
    expect(events).toEqual(['start first', 'end first', 'start moved', 'end moved']);
  });

  test('calls of different requests on different files run side by side', async () => {
    const events: string[] = [];
    const gates = new Map([['a', deferred()]]);
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [fileTool('Put', events, gates)], approveAll: true }));
    const a = call('Put', { id: 'a', path: 'a.txt' });
    await waitFor(() => events.includes('start a'), { what: 'a to start', timeoutMs: 10_000 });
    expect(callResultText(await call('Put', { id: 'b', path: 'b.txt' }))).toBe('b done');
    expect(events).toEqual(['start a', 'start b', 'end b']);
    gates.get('a')!.resolve();
    await a;
  });

  test('a call cancelled while it waits for a conflicting call does not run, and does not block later ones', async () => {
    const events: string[] = [];
    const gates = new Map([['first', deferred()]]);
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [fileTool('Put', events, gates)], approveAll: true }));
    const first = call('Put', { id: 'first', path: 'same.txt' });
    await waitFor(() => events.includes('start first'), { what: 'the first call to start', timeoutMs: 10_000 });
    const controller = new AbortController();
    const second = h.client.callTool({ name: 'Put', arguments: { id: 'second', path: 'same.txt' } }, undefined, { signal: controller.signal });
    await waitFor(() => h!.mcp.callsWaitingForOrder === 1, { what: 'the second call to wait', timeoutMs: 10_000 });
    controller.abort();
    await expect(second).rejects.toThrow();
    await waitFor(() => h!.mcp.callsWaitingForOrder === 0, { what: 'the second call to leave the queue', timeoutMs: 10_000 });
    const third = call('Put', { id: 'third', path: 'same.txt' });
    gates.get('first')!.resolve();
    await first;
    expect(callResultText(await third)).toBe('third done');
    expect(events).toEqual(['start first', 'end first', 'start third', 'end third']);
  });
});

describe('cancellation and progress', () => {
  test('notifications/cancelled aborts the running call; the server goes on', async () => {
    const sawAbort = deferred<string>();
    const tools = [
      testTool('Wait', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: (_input, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              sawAbort.resolve(String(ctx.signal.reason));
              resolve({ output: 'stopped' });
            });
          }),
      }),
      echoTool,
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools }));
    const outcomes: string[] = [];
    h.agent.executor.onToolCallFinished((e) => outcomes.push(`${e.name}:${e.outcome}`));
    const controller = new AbortController();
    const pending = h.client.callTool({ name: 'Wait', arguments: {} }, undefined, { signal: controller.signal });
    await waitFor(() => h!.mcp.activeCalls === 1, { what: 'Wait to start', timeoutMs: 10_000 });
    controller.abort('the user pressed stop');
    await expect(pending).rejects.toThrow('the user pressed stop');
    expect(await sawAbort.promise).toBe('the user pressed stop');
    await waitFor(() => outcomes.length === 1, { what: 'the call to finish', timeoutMs: 10_000 });
    expect(outcomes).toEqual(['Wait:aborted']);
    expect(callResultText(await call('Echo', { text: 'next' }))).toBe('echo: next');
  });

  test('cancelling a call whose approval is being asked cancels the elicitation too', async () => {
    const elicitationAborted = deferred();
    const touch = testTool('Touch', { execute: () => ({ output: 'touched' }) });
    h = fx.use(await openMcpServeHarness({
      cwd: fx.dir,
      tools: [touch, echoTool],
      elicitation: (_request, extra) =>
        new Promise((_resolve, reject) =>
          extra.signal.addEventListener('abort', () => {
            elicitationAborted.resolve();
            reject(new Error('cancelled'));
          }),
        ),
    }));
    const controller = new AbortController();
    const pending = h.client.callTool({ name: 'Touch', arguments: {} }, undefined, { signal: controller.signal });
    await waitFor(() => h!.elicitations.length === 1, { what: 'the elicitation', timeoutMs: 10_000 });
    controller.abort();
    await expect(pending).rejects.toBeDefined();
    await elicitationAborted.promise;
    expect(callResultText(await call('Echo', { text: 'next' }))).toBe('echo: next');
  });

  test('tool progress becomes notifications/progress for a request with a progress token', async () => {
    const seen = deferred();
    const tools = [
      testTool('Steps', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: async (_input, ctx) => {
          ctx.onUpdate({ kind: 'progress', progress: 1, total: 3, text: 'one' });
          ctx.onUpdate({ kind: 'progress', progress: 2, total: 3 });
          ctx.onUpdate({ kind: 'stdout', text: 'compiling a.ts\ncompiling b.ts\n' });
          await seen.promise;
          return { output: 'all steps done' };
        },
      }),
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools }));
    const progress: Progress[] = [];
    const pending = h.client.callTool({ name: 'Steps', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 3) seen.resolve();
      },
    });
    expect(callResultText((await pending) as CallToolResult)).toBe('all steps done');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3 },
      { progress: 3, total: 3, message: 'compiling b.ts' },
    ]);
  });

  test('a long call that reports nothing gets "still running" progress notifications', async () => {
    const enough = deferred();
    const tools = [testTool('Quiet', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: async () => (await enough.promise, { output: 'done' }) })];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools, server: { heartbeatMs: 20 } }));
    const progress: Progress[] = [];
    const pending = h.client.callTool({ name: 'Quiet', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 2) enough.resolve();
      },
    });
    expect(callResultText((await pending) as CallToolResult)).toBe('done');
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(progress[0]!.message).toMatch(/^Quiet is still running \(\d+ s\)$/);
  });

  test('progress faster than the interval is coalesced (the newest update wins)', async () => {
    const sent = deferred();
    const tools = [
      testTool('Chatty', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: async (_input, ctx) => {
          for (let i = 1; i <= 50; i++) ctx.onUpdate({ kind: 'progress', progress: i, total: 50 });
          await sent.promise;
          return { output: 'done' };
        },
      }),
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools, server: { progressIntervalMs: 50 } }));
    const progress: Progress[] = [];
    const pending = h.client.callTool({ name: 'Chatty', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (p.progress === 50) sent.resolve();
      },
    });
    await pending;
    expect(progress).toEqual([
      { progress: 1, total: 50 },
      { progress: 50, total: 50 },
    ]);
  });
});

describe('the tool list follows the active set', () => {
  test('a config change that disables a tool is announced with tools/list_changed', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool, testTool('Other')] }));
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['Echo', 'Other']);
    h.app.config.update({ tools: { disabled: ['Other'] } });
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['Echo']);
    expect(callResultText(await call('Other'))).toBe(
      'Tool "Other" exists but is not active (excluded by config tools.enabled/tools.disabled), so it cannot be called now; use another tool.',
    );
  });

  test('a feature added at run time is announced', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool] }));
    await h.client.listTools();
    h.app.addFeature(new Feature('late').contributeTool(testTool('Late', { accesses: () => ToolAccesses.none(), approval: 'auto' })));
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['Echo', 'Late']);
    expect(callResultText(await call('Late'))).toBe('Late done');
  });

  test('a description that changes with the config is announced', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, builtins: true }));
    const before = (await h.client.listTools()).tools.find((t) => t.name === 'Read')!.description;
    expect(before).toContain('at most 50,000 characters');
    h.app.config.update({ read: { maxChars: 20_000 } });
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    expect((await h.client.listTools()).tools.find((t) => t.name === 'Read')!.description).toContain('at most 20,000 characters');
  });

  test('several changes in a row are announced once', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool, testTool('A'), testTool('B')], server: { listChangedDelayMs: 200 } }));
    await h.client.listTools();
    h.app.config.update({ tools: { disabled: ['A'] } });
    h.app.config.update({ tools: { disabled: ['A', 'B'] } });
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    // A later change is a new announcement: the count proves the first burst was one.
    h.app.config.update({ tools: { disabled: [] } });
    await waitFor(() => h!.listChanged.length === 2, { what: 'the second tools/list_changed', timeoutMs: 10_000 });
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['A', 'B', 'Echo']);
  });
});

describe('host tools and deferred loading', () => {
  const askTeammate = { name: 'ask_teammate', description: 'Asks a teammate a question.', parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } };

  test('user tools the library host registers are served; their calls go to the host through the delegate', async () => {
    const host = new FakeHost({ user_tool: (request) => ({ output: `${request.name} answered ${JSON.stringify(request.args)}` }) });
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools: [echoTool], delegate: host }));
    await h.client.listTools();
    h.agent.get(IAgentUserToolService).register(askTeammate);
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    const { tools } = await h.client.listTools();
    expect(tools.find((t) => t.name === 'ask_teammate')).toEqual({
      name: 'ask_teammate',
      description: 'Asks a teammate a question.',
      inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    });
    expect(callResultText(await call('ask_teammate', { question: 'why?' }))).toBe('ask_teammate answered {"question":"why?"}');
  });

  test('with deferred loading on, a deferred tool is listed once select_tools loads it', async () => {
    h = fx.use(await openMcpServeHarness({
      cwd: fx.dir,
      builtins: true,
      env: { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1' },
      modelCapabilities: ['dynamically_loaded_tools'],
      delegate: new FakeHost({ user_tool: () => ({ output: 'ok' }), notification: () => undefined }),
    }));
    h.agent.get(IAgentUserToolService).register({ ...askTeammate, disclosure: 'deferred' });
    const before = (await h.client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('select_tools');
    expect(before).not.toContain('ask_teammate');
    expect(callResultText(await call('ask_teammate', { question: 'q' }))).toBe(
      'Tool "ask_teammate" is available but not loaded. Call select_tools with ["ask_teammate"] first, then call the tool.',
    );
    expect(callResultText(await call('select_tools', { names: ['ask_teammate'] }))).toContain('Loaded: ask_teammate');
    await waitFor(() => h!.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 10_000 });
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('ask_teammate');
    expect(callResultText(await call('ask_teammate', { question: 'q' }))).toBe('ok');
  });
});

describe('close', () => {
  test('close() aborts running calls and waits for them', async () => {
    const events: string[] = [];
    const tools = [
      testTool('Wait', {
        accesses: () => ToolAccesses.none(),
        approval: 'auto',
        execute: (_input, ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              events.push('aborted');
              resolve({ output: 'stopped' });
            }),
          ),
      }),
    ];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, tools }));
    const pending = h.client.callTool({ name: 'Wait', arguments: {} });
    pending.catch(() => undefined);
    await waitFor(() => h!.mcp.activeCalls === 1, { what: 'Wait to start', timeoutMs: 10_000 });
    await h.mcp.close();
    expect(events).toEqual(['aborted']);
    expect(h.mcp.activeCalls).toBe(0);
    await expect(pending).rejects.toThrow(/Connection closed/);
  });
});
