import { spawn } from 'node:child_process';
import * as nodePath from 'node:path';
import { CLI } from '../helpers/cliProcess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';

/**
 * The MCP Inspector (`@modelcontextprotocol/inspector`, a devDependency) in CLI mode against the
 * built `toolhost mcp serve`: a second, independent MCP client (the Inspector is built on the SDK's
 * 2.x client). `--` separates the Inspector's options from the server command, whose `--cwd` the
 * Inspector would otherwise take for its own.
 */
const ROOT = nodePath.resolve(__dirname, '../..');

let ws: string;
beforeEach(() => {
  ws = makeTempDir('toolhost-inspector-');
  writeFiles(ws, { 'notes.txt': 'first\nsecond\n' });
});
afterEach(() => removeDir(ws));

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no-install', '@modelcontextprotocol/inspector', '--cli', ...args, '--', process.execPath, CLI, 'mcp', 'serve', '--cwd', ws], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('@modelcontextprotocol/inspector --cli', () => {
  test('--method tools/list prints the tools as JSON', async () => {
    const run = await inspector(['--method', 'tools/list']);
    expect(run.code).toBe(0);
    const { tools } = JSON.parse(run.stdout) as { tools: Array<{ name: string; inputSchema: { type: string }; annotations?: object }> };
    expect(tools.map((t) => t.name)).toEqual(['Bash', 'CreateGoal', 'Edit', 'ExitPlanMode', 'FetchURL', 'GetGoal', 'Glob', 'Grep', 'NotifyUser', 'Read', 'ReadMediaFile', 'SetGoalBudget', 'TaskList', 'TaskOutput', 'TaskStop', 'TodoList', 'UpdateGoal', 'WaitFor', 'Write']);
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
    expect(tools.find((t) => t.name === 'Read')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  }, 60_000);

  test('--method tools/call --tool-name Read --tool-arg path=… prints the result', async () => {
    const run = await inspector(['--method', 'tools/call', '--tool-name', 'Read', '--tool-arg', 'path=notes.txt']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      _meta: { 'toolhost/outcome': 'executed' },
      content: [{ type: 'text', text: '1\tfirst\n2\tsecond\n<system>Lines 1-2 of 2. End of file reached.</system>' }],
    });
  }, 60_000);

  test('a call that needs approval comes back as an error result, not a protocol error', async () => {
    const run = await inspector(['--method', 'tools/call', '--tool-name', 'Write', '--tool-arg', 'path=new.txt', 'content=x']);
    // The Inspector prints the result and exits with 5 for a result with isError.
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('"code":"tool_is_error"');
    const result = JSON.parse(run.stdout) as { isError: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Tool "Write" was not run: it needs approval/);
  }, 60_000);

  test('--strict finds no schema portability problems in the tool list', async () => {
    const run = await inspector(['--method', 'tools/list', '--strict']);
    expect(run.code).toBe(0);
  }, 60_000);
});
