import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, cliStdioEnv, runCliProcess, startCliProcess } from '../helpers/cliProcess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';
import { deferred, waitFor } from '../helpers/async';
import { ESCAPE_ROUTES, isAlive, killQuietly, readPidFile } from '../helpers/processes';
import { callResultText } from '../helpers/mcpServeHarness';

// NotifyUser: the client is connected, so it takes log messages; AskUserQuestion: absent, the SDK client here declares no elicitation.
const ALL_TOOLS = ['Bash', 'CreateGoal', 'Edit', 'ExitPlanMode', 'FetchURL', 'GetGoal', 'Glob', 'Grep', 'NotifyUser', 'Read', 'ReadMediaFile', 'SetGoalBudget', 'TaskList', 'TaskOutput', 'TaskStop', 'TodoList', 'UpdateGoal', 'WaitFor', 'Write'];
let root: string;
let ws: string;
beforeEach(() => {
  root = makeTempDir('toolhost-mcp-e2e-');
  ws = nodePath.join(root, 'ws');
  writeFiles(root, { 'ws/a.txt': 'alpha\nbeta\n', 'outside.txt': 'far away\n' });
});
afterEach(() => removeDir(root));

interface Connection {
  readonly client: Client;
  readonly stderr: () => string;
  /** Errors the client saw (a line on stdout that is not JSON-RPC would be one). */
  readonly errors: Error[];
  readonly elicitations: ElicitRequest[];
  readonly listChanged: number[];
  close(): Promise<void>;
}

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** Starts `toolhost mcp serve` (the built CLI) and connects the SDK client to it over stdio. */
async function serve(args: string[], options: { elicitation?: (request: ElicitRequest, signal: AbortSignal) => ElicitResult | Promise<ElicitResult> } = {}): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', ...args], cwd: root, env: cliStdioEnv(), stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'e2e-client', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: {} } : {} });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const elicitations: ElicitRequest[] = [];
  if (options.elicitation) {
    const answer = options.elicitation;
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      elicitations.push(request);
      return answer(request, extra.signal);
    });
  }
  const listChanged: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(listChanged.length + 1));
  await client.connect(transport);
  const connection = { client, stderr: () => stderr, errors, elicitations, listChanged, close: () => client.close() };
  open.push(connection);
  return connection;
}

async function call(c: Connection, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.client.callTool({ name, arguments: args })) as CallToolResult;
}


describe('toolhost mcp serve with the SDK client over stdio', () => {
  test('lists the active tools and reads a file; logs go to stderr', async () => {
    const c = await serve(['--cwd', ws]);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    expect(tools.find((t) => t.name === 'Read')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema).not.toHaveProperty('$schema');
    }
    expect(await call(c, 'Read', { path: 'a.txt' })).toEqual({
      content: [{ type: 'text', text: '1\talpha\n2\tbeta\n<system>Lines 1-2 of 2. End of file reached.</system>' }],
      _meta: { 'toolhost/outcome': 'executed' },
    });
    expect(c.stderr()).toContain(`toolhost: serving ${ALL_TOOLS.length} tools from ${ws} to e2e-client 1.0.0; it cannot ask the client for approvals (no elicitation)\n`);
    expect(c.errors).toEqual([]);
  });

  test('a call that needs approval is denied without elicitation and without --yes, naming both ways to allow it', async () => {
    const c = await serve(['--cwd', ws]);
    const result = await call(c, 'Write', { path: 'new.txt', content: 'hello' });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text:
            `Tool "Write" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Write(${ws}/new.txt)" to approval.allow in toolhost.json, ` +
            'or start "toolhost mcp serve" with --yes to approve every call, or connect from an MCP client that supports elicitation. ' +
            'Do not retry the same call; choose a different approach or ask the user how to proceed.',
        },
      ],
      isError: true,
      _meta: { 'toolhost/outcome': 'denied' },
    });
    expect(fs.existsSync(nodePath.join(ws, 'new.txt'))).toBe(false);
    // A read outside the workspace needs approval too.
    expect((await call(c, 'Read', { path: nodePath.join(root, 'outside.txt') }))._meta).toEqual({ 'toolhost/outcome': 'denied' });
  });

  test('--yes approves', async () => {
    const c = await serve(['--cwd', ws, '--yes']);
    expect(callResultText(await call(c, 'Write', { path: 'new.txt', content: 'hello' }))).toMatch(/^Wrote 5 bytes/);
    expect(fs.readFileSync(nodePath.join(ws, 'new.txt'), 'utf8')).toBe('hello');
    expect(c.stderr()).toContain('approves every call (--yes)');
  });

  test('a client with elicitation is asked: approve writes the file', async () => {
    const c = await serve(['--cwd', ws], { elicitation: () => ({ action: 'accept', content: { decision: 'approve' } }) });
    expect(callResultText(await call(c, 'Write', { path: 'new.txt', content: 'hello' }))).toMatch(/^Wrote 5 bytes/);
    expect(fs.readFileSync(nodePath.join(ws, 'new.txt'), 'utf8')).toBe('hello');
    expect(c.elicitations).toHaveLength(1);
    expect(c.elicitations[0]!.params.message.split('\n')[0]).toBe('Write wants to run: Writing new.txt');
    expect(c.stderr()).toContain('it asks the client for approvals');
  });

  test('a client with elicitation is asked: reject leaves the file alone and passes the reason on', async () => {
    const c = await serve(['--cwd', ws], { elicitation: () => ({ action: 'accept', content: { decision: 'reject', reason: 'write to b.txt instead' } }) });
    const result = await call(c, 'Write', { path: 'new.txt', content: 'hello' });
    expect(result._meta).toEqual({ 'toolhost/outcome': 'denied' });
    expect(callResultText(result)).toBe(
      'Tool "Write" was not run: the user rejected it. Reason: write to b.txt instead Do not retry the same call; choose a different approach or ask the user how to proceed.',
    );
    expect(fs.existsSync(nodePath.join(ws, 'new.txt'))).toBe(false);
  });

  test('cancelling a call cancels its pending approval; the call never runs and the server goes on', async () => {
    const cancelled = deferred();
    const c = await serve(['--cwd', ws], {
      elicitation: (_request, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            cancelled.resolve();
            reject(new Error('cancelled'));
          }),
        ),
    });
    const controller = new AbortController();
    const pending = c.client.callTool({ name: 'Write', arguments: { path: 'new.txt', content: 'hello' } }, undefined, { signal: controller.signal });
    await waitFor(() => c.elicitations.length === 1, { what: 'the approval request', timeoutMs: 20_000 });
    controller.abort('stop');
    await expect(pending).rejects.toThrow('stop');
    await cancelled.promise;
    expect(callResultText(await call(c, 'Read', { path: 'a.txt' }))).toMatch(/^1\talpha/);
    expect(fs.existsSync(nodePath.join(ws, 'new.txt'))).toBe(false);
  });

  test('Bash output reaches the client as progress; output over the budget is spilled to a file named in _meta', async () => {
    writeFiles(ws, { 'toolhost.json': JSON.stringify({ toolResult: { maxChars: 5000 } }) });
    const c = await serve(['--cwd', ws, '--yes']);
    const progress: Progress[] = [];
    const result = (await c.client.callTool({ name: 'Bash', arguments: { command: 'echo started; seq 1 20000' } }, undefined, {
      onprogress: (p) => void progress.push(p),
    })) as CallToolResult;
    // A step per output chunk, with the chunk's last line (how the pipe splits the output, and
    // which steps are coalesced, varies).
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress)).toBe(true);
    for (const p of progress) expect(p.message).toMatch(/^(started|\d+)$/);
    const path = result._meta!['toolhost/outputPath'] as string;
    expect(callResultText(result)).toContain(`output_path: ${path}`);
    expect(fs.readFileSync(path, 'utf8')).toMatch(/^started\n1\n2\n3\n/);
  });

  test('cancelling a running Bash call kills its processes', async () => {
    const c = await serve(['--cwd', ws, '--yes']);
    const controller = new AbortController();
    const pending = c.client.callTool({ name: 'Bash', arguments: { command: 'sleep 60 & echo $! > pid.txt; wait' } }, undefined, { signal: controller.signal });
    await waitFor(() => fs.existsSync(nodePath.join(ws, 'pid.txt')) && fs.readFileSync(nodePath.join(ws, 'pid.txt'), 'utf8').endsWith('\n'), { what: 'the command to start', timeoutMs: 20_000 });
    const pid = Number(fs.readFileSync(nodePath.join(ws, 'pid.txt'), 'utf8'));
    expect(isAlive(pid)).toBe(true);
    controller.abort('stop');
    await expect(pending).rejects.toThrow('stop');
    await waitFor(() => !isAlive(pid), { what: 'the sleep to be killed', timeoutMs: 20_000 });
    expect(callResultText(await call(c, 'Read', { path: 'a.txt' }))).toMatch(/^1\talpha/);
  });

  test('editing toolhost.json while connected changes the tools and announces it', async () => {
    writeFiles(ws, { 'toolhost.json': '{}' });
    const c = await serve(['--cwd', ws]);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    fs.writeFileSync(nodePath.join(ws, 'toolhost.json'), JSON.stringify({ tools: { enabled: ['Read'] }, approval: { allow: [`Read(${root}/*.txt)`] } }));
    await waitFor(() => c.listChanged.length === 1, { what: 'tools/list_changed', timeoutMs: 20_000 });
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['Read']);
    // The new approval rule is in effect too.
    expect(callResultText(await call(c, 'Read', { path: nodePath.join(root, 'outside.txt') }))).toMatch(/^1\tfar away/);
    expect(c.stderr()).toContain(`toolhost: reloaded ${nodePath.join(ws, 'toolhost.json')}\n`);
    expect(c.stderr()).toContain('toolhost: the tool list changed (removed Bash, CreateGoal, Edit, ExitPlanMode, FetchURL, GetGoal, Glob, Grep, NotifyUser, ReadMediaFile, SetGoalBudget, TaskList, TaskOutput, TaskStop, TodoList, UpdateGoal, WaitFor, Write); telling the client\n');
  });

  test('an invalid edit of toolhost.json is reported on stderr and changes nothing', async () => {
    writeFiles(ws, { 'toolhost.json': '{}' });
    const c = await serve(['--cwd', ws]);
    await c.client.listTools();
    fs.writeFileSync(nodePath.join(ws, 'toolhost.json'), '{"tools": {"disabled": "Write"}}');
    await waitFor(() => c.stderr().includes('The change was ignored'), { what: 'the report', timeoutMs: 20_000 });
    expect(c.stderr()).toContain('tools.disabled: expected array, received string');
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
  });
});

/** The server as a raw process: what exactly it writes on stdout, and how it exits. */
function spawnServe(args: string[]): { child: ChildProcessWithoutNullStreams; stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  const cli = startCliProcess(['mcp', 'serve', ...args], { cwd: root });
  return { ...cli, exit: cli.exit.then(({ code }) => code) };
}

const line = (message: object) => JSON.stringify(message) + '\n';
const INIT = [
  line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
  line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
];

describe('toolhost mcp serve as a process', () => {
  test('stdout carries only JSON-RPC; a garbage line is logged and skipped; closing stdin ends the process with code 0', async () => {
    const s = spawnServe(['--cwd', ws]);
    s.child.stdin.write(INIT.join('') + 'this is not json\n' + line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Read', arguments: { path: 'a.txt' } } }));
    await waitFor(() => s.stdout().includes('"id":2'), { what: 'the tools/call response', timeoutMs: 20_000 });
    s.child.stdin.end();
    expect(await s.exit).toBe(0);
    const messages = s
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { jsonrpc: string; id?: number; result?: { content?: unknown } });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.find((m) => m.id === 2)!.result!.content).toEqual([{ type: 'text', text: '1\talpha\n2\tbeta\n<system>Lines 1-2 of 2. End of file reached.</system>' }]);
    expect(s.stderr()).toMatch(/toolhost: MCP protocol error: .*JSON/);
    expect(s.stderr()).toContain('toolhost: shutting down: the client closed the connection\n');
  });

  test('closing stdin while a call waits for its approval aborts the call and ends the process with code 0', async () => {
    const s = spawnServe(['--cwd', ws]);
    s.child.stdin.write(
      line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '0' } } }) +
        line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Write', arguments: { path: 'new.txt', content: 'x' } } }),
    );
    await waitFor(() => s.stdout().includes('"method":"elicitation/create"'), { what: 'the approval request', timeoutMs: 20_000 });
    s.child.stdin.end();
    expect(await s.exit).toBe(0);
    expect(fs.existsSync(nodePath.join(ws, 'new.txt'))).toBe(false);
    // The cancelled call gets no response.
    expect(s.stdout()).not.toContain('"id":2');
  });

  test('closing stdin while Bash runs ends the process and the command with it', async () => {
    const s = spawnServe(['--cwd', ws, '--yes']);
    s.child.stdin.write(INIT.join('') + line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'sleep 60 & echo $! > pid.txt; wait' } } }));
    await waitFor(() => fs.existsSync(nodePath.join(ws, 'pid.txt')) && fs.readFileSync(nodePath.join(ws, 'pid.txt'), 'utf8').endsWith('\n'), { what: 'the command to start', timeoutMs: 20_000 });
    const pid = Number(fs.readFileSync(nodePath.join(ws, 'pid.txt'), 'utf8'));
    s.child.stdin.end();
    expect(await s.exit).toBe(0);
    await waitFor(() => !isAlive(pid), { what: 'the sleep to be gone', timeoutMs: 20_000 });
  });

  test('SIGTERM ends the process cleanly, with code 143', async () => {
    const s = spawnServe(['--cwd', ws]);
    s.child.stdin.write(INIT.join('') + line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    await waitFor(() => s.stdout().includes('"id":2'), { what: 'the tools/list response', timeoutMs: 20_000 });
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(143);
    expect(s.stderr()).toContain('toolhost: shutting down: SIGTERM\n');
  });

  test('a 12 MB Write is served; a 70 MB message is answered with an error and the server goes on', async () => {
    const s = spawnServe(['--cwd', ws, '--yes']);
    const content = 'abcdefghij'.repeat(1_200_000) + '\n';
    s.child.stdin.write(INIT.join('') + line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Write', arguments: { path: 'big.txt', content } } }));
    await waitFor(() => s.stdout().includes('"id":2'), { what: 'the Write response', timeoutMs: 30_000 });
    expect(fs.readFileSync(nodePath.join(ws, 'big.txt'), 'utf8')).toBe(content);
    // The SDK's client writes the id last.
    s.child.stdin.write(line({ method: 'tools/call', params: { name: 'Write', arguments: { path: 'huge.txt', content: 'x'.repeat(70 * 1024 * 1024) } }, jsonrpc: '2.0', id: 3 }));
    s.child.stdin.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'Read', arguments: { path: 'a.txt' } } }));
    await waitFor(() => s.stdout().includes('"id":4'), { what: 'the Read response', timeoutMs: 30_000 });
    const messages = s
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; error?: unknown; result?: { content?: unknown; isError?: boolean } });
    expect(messages.find((m) => m.id === 2)!.result!.isError).toBeUndefined();
    expect(messages.find((m) => m.id === 3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32600,
        message: 'Message too large: 70 MB (73,400,437 bytes) is over the limit of 64 MB for one JSON-RPC message, so it was not processed. Send a smaller request.',
      },
    });
    expect(messages.find((m) => m.id === 4)!.result!.content).toEqual([{ type: 'text', text: '1\talpha\n2\tbeta\n<system>Lines 1-2 of 2. End of file reached.</system>' }]);
    expect(fs.existsSync(nodePath.join(ws, 'huge.txt'))).toBe(false);
    expect(s.stderr()).toContain('toolhost: MCP protocol error: a message of 73,400,437 bytes is over the limit of 64 MB; answered with error -32600 (id 3)\n');
    s.child.stdin.end();
    expect(await s.exit).toBe(0);
  }, 60_000);

  test('a client that dies (all three pipes closed) ends the server and its task', async () => {
    const s = spawnServe(['--cwd', ws, '--yes']);
    s.child.stdin.write(
      INIT.join('') +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo $$ > task.pid; exec sleep 100', run_in_background: true } } }),
    );
    await waitFor(() => s.stdout().includes('"id":2'), { what: 'the task to start', timeoutMs: 20_000 });
    const task = await readPidFile(nodePath.join(ws, 'task.pid'));
    try {
      s.child.stdin.destroy();
      s.child.stdout.destroy();
      s.child.stderr.destroy();
      // Writing its shutdown line to the dead stderr used to spin at 100 % CPU for ever.
      await waitFor(() => s.child.exitCode !== null || s.child.signalCode !== null, { what: 'the server to exit', timeoutMs: 15_000 });
      expect(s.child.exitCode).toBe(0);
      expect(isAlive(task)).toBe(false);
    } finally {
      killQuietly(task);
      killQuietly(s.child.pid!);
    }
  });

  describe('stopped by a signal, it ends every process it started', () => {
    const leftovers: number[] = [];
    afterEach(() => {
      for (const pid of leftovers.splice(0)) killQuietly(pid);
    });

    /** A background task, then a foreground command with a child that left its process group. */
    async function serveWithProcesses(): Promise<{ s: ReturnType<typeof spawnServe>; pids: number[] }> {
      const s = spawnServe(['--cwd', ws, '--yes']);
      s.child.stdin.write(
        INIT.join('') +
          line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo $$ > task.pid; exec sleep 100', run_in_background: true } } }),
      );
      await waitFor(() => s.stdout().includes('"id":2'), { what: 'the task to start', timeoutMs: 20_000 });
      s.child.stdin.write(
        line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: `${ESCAPE_ROUTES[1]![1]}\necho $$ > shell.pid\nsleep 100` } } }),
      );
      const pids = await Promise.all(['task.pid', 'shell.pid', 'esc.pid'].map((file) => readPidFile(nodePath.join(ws, file))));
      leftovers.push(...pids);
      for (const pid of pids) expect(isAlive(pid)).toBe(true);
      return { s, pids };
    }

    test('SIGHUP: exits with code 129', async () => {
      const { s, pids } = await serveWithProcesses();
      s.child.kill('SIGHUP');
      expect(await s.exit).toBe(129);
      for (const pid of pids) expect([pid, isAlive(pid)]).toEqual([pid, false]);
      expect(s.stderr()).toContain('toolhost: shutting down: SIGHUP\n');
    });

    test('SIGKILL: its watchdog stops them', async () => {
      const { s, pids } = await serveWithProcesses();
      s.child.kill('SIGKILL');
      expect(await s.exit).toBeNull();
      await waitFor(() => pids.every((pid) => !isAlive(pid)), { what: 'every process of the server to end' });
    });
  });

  test.each<[string, string[], RegExp]>([
    ['an unknown flag', ['--bogus'], /error: unknown option '--bogus'/],
    ['a missing --cwd', ['--cwd', 'nowhere'], /^toolhost: --cwd: directory "nowhere" does not exist\.\n$/],
    ['an unknown profile', ['--profile', 'nope'], /^toolhost: --profile: Unknown profile "nope"\. Known profiles: default\.\n$/],
    ['a missing --config file', ['--config', 'missing.json'], /^toolhost: Invalid configuration in .*missing\.json:\n {2}- \(root\): file not found\n$/],
  ])('%s exits with code 2 before serving', async (_name, args, stderr) => {
    const run = await runCliProcess(['mcp', 'serve', ...args], { cwd: root, input: INIT.join('') });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(stderr);
  });

  test('`toolhost mcp` without a subcommand is a usage error', async () => {
    const run = await runCliProcess(['mcp'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: toolhost mcp [options] [command]');
  });
});
