import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { runCliProcess } from '../helpers/cliProcess';
import { useTempDir, writeFiles } from '../helpers/tempDir';

const dir = useTempDir();
const version = (JSON.parse(fs.readFileSync(nodePath.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;

describe('toolhost tools', () => {
  test('--json prints only a JSON array of the active tools, sorted by name', async () => {
    const run = await runCliProcess(['tools', '--json'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const tools = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toEqual([...tools.map((t) => t.name)].sort());
    expect(tools.map((t) => t.name)).toContain('Read');
    for (const tool of tools) {
      expect(Object.keys(tool)).toEqual(['name', 'description', 'parameters', 'source', 'disclosure']);
      expect(tool).toMatchObject({ source: 'builtin', disclosure: 'inline', parameters: { type: 'object' } });
    }
  });

  test('prints a table by default', async () => {
    const run = await runCliProcess(['tools', '--cwd', dir.path], { cwd: '/' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^NAME +SOURCE +DISCLOSURE +DESCRIPTION\n/);
    expect(run.stdout).toMatch(/\nRead +builtin +inline +Reads a text file/);
    expect(run.stdout).toContain(`active tool${''}`);
  });

  test('a profile and config tools.disabled shape the list; --all explains what is missing', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ profiles: { none: { tools: [] } } }) });
    const none = await runCliProcess(['tools', '--json', '--profile', 'none'], { cwd: dir.path });
    expect([none.code, JSON.parse(none.stdout)]).toEqual([0, []]);
    writeFiles(dir.path, { 'other.json': JSON.stringify({ tools: { disabled: ['Read'] } }) });
    const all = await runCliProcess(['tools', '--all', '--config', 'other.json'], { cwd: dir.path });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/\nRead +builtin +\(inactive\) +excluded by config tools.enabled\/tools.disabled\n/);
  });

  test('patterns that can never match are reported as warnings on stderr', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ tools: { disabled: ['Bash*', 'mcp__github', 'Raed'] } }) });
    const run = await runCliProcess(['tools', '--json'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'warning: tools.disabled: "Bash*" uses a wildcard, but wildcards only match MCP tools (mcp__server__*); write builtin tool names whole.\n' +
        'warning: tools.disabled: "mcp__github" names an MCP server but no tool; use "mcp__github__<tool>" or "mcp__github__*".\n' +
        'warning: tools.disabled: "Raed" is not a known tool name.\n',
    );
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
  });
});

describe('usage errors exit with code 2 and a clear message', () => {
  test.each<[string, string[], Record<string, string>, RegExp]>([
    ['an unknown flag', ['tools', '--bogus'], {}, /error: unknown option '--bogus'/],
    ['an unknown command', ['tolls'], {}, /error: unknown command 'tolls'\n\(Did you mean tools\?\)/],
    ['a missing --cwd', ['tools', '--cwd', 'nope'], {}, /^toolhost: --cwd: directory "nope" does not exist\.\n$/],
    ['an unknown profile', ['tools', '--profile', 'ghost'], {}, /^toolhost: --profile: Unknown profile "ghost"\. Known profiles: default\.\n$/],
    ['a missing --config file', ['tools', '--config', 'nope.json'], {}, /^toolhost: Invalid configuration in .*nope\.json:\n {2}- \(root\): file not found\n$/],
    [
      'a config value of the wrong type',
      ['tools'],
      { 'toolhost.json': JSON.stringify({ read: { maxChars: 'lots' } }) },
      /^toolhost: Invalid configuration in .*toolhost\.json:\n {2}- read\.maxChars: expected number, received string\n$/,
    ],
    ['an unknown config key', ['tools'], { 'toolhost.json': JSON.stringify({ raed: {} }) }, /- raed: unknown key \(did you mean "read"\?\)/],
    ['a flag without its value', ['tools', '--profile'], {}, /error: option '--profile <name>' argument missing/],
    [
      'an unknown model capability',
      ['tools', '--model-capability', 'image_inn'],
      {},
      /^toolhost: --model-capability: unknown capability "image_inn" \(did you mean "image_in"\?\); known: dynamically_loaded_tools, image_in, video_in\.\n$/,
    ],
    ['a config file holding null', ['tools'], { 'toolhost.json': 'null' }, /^toolhost: Invalid configuration in .*toolhost\.json:\n {2}- \(root\): expected object, received null\n$/],
  ])('%s', async (_name, args, files, stderr) => {
    writeFiles(dir.path, files);
    const run = await runCliProcess(args, { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(run.stdout).toBe('');
  });
});

test('a config file saved with a UTF-8 byte-order mark is read', async () => {
  writeFiles(dir.path, { 'toolhost.json': `\uFEFF${JSON.stringify({ tools: { disabled: ['Bash'] } })}` });
  const run = await runCliProcess(['tools', '--json'], { cwd: dir.path });
  expect(run.stderr).toBe('');
  const names = (JSON.parse(run.stdout) as Array<{ name: string }>).map((t) => t.name);
  expect(names).toContain('Read');
  expect(names).not.toContain('Bash');
});

describe('help and version', () => {
  test('--help lists the commands and exits 0', async () => {
    const run = await runCliProcess(['--help'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: toolhost \[options\] \[command\]/);
    expect(run.stdout).toMatch(/\n {2}tools \[options\] +print the tools the agent's model is given/);
    expect(run.stdout).toMatch(/\n {2}run \[options\] \[file\] +run a batch of tool calls/);
  });

  test('tools --help shows its flags', async () => {
    const run = await runCliProcess(['tools', '--help'], { cwd: dir.path });
    expect(run.code).toBe(0);
    for (const flag of ['--json', '--cwd <dir>', '--config <file>', '--profile <name>']) expect(run.stdout).toContain(flag);
  });

  test('--version prints the package version', async () => {
    const run = await runCliProcess(['--version'], { cwd: dir.path });
    expect([run.code, run.stdout]).toEqual([0, `${version}\n`]);
  });

  test('no arguments prints help to stderr and exits 2', async () => {
    const run = await runCliProcess([], { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Usage: toolhost/);
  });
});

describe('toolhost tools --format', () => {
  test('openai prints Chat Completions tool entries', async () => {
    const run = await runCliProcess(['tools', '--format', 'openai'], { cwd: dir.path });
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<{ type: string; function: { name: string; parameters: Record<string, unknown> } }>;
    expect(tools.find((t) => t.function.name === 'Read')).toMatchObject({ type: 'function', function: { name: 'Read', parameters: { type: 'object' } } });
    for (const tool of tools) expect(tool.function.parameters.$schema).toBeUndefined();
  });

  test('anthropic prints Messages API tool entries', async () => {
    const run = await runCliProcess(['tools', '--format', 'anthropic'], { cwd: dir.path });
    const tools = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(Object.keys(tools[0]!)).toEqual(['name', 'description', 'input_schema']);
  });

  test('openai-responses prints Responses API tool entries (flat)', async () => {
    const run = await runCliProcess(['tools', '--format', 'openai-responses'], { cwd: dir.path });
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(Object.keys(tools[0]!)).toEqual(['type', 'name', 'description', 'parameters', 'strict']);
    expect(tools.find((t) => t['name'] === 'Read')).toMatchObject({ type: 'function', strict: false, parameters: { type: 'object' } });
  });

  test('json is the same as --json', async () => {
    const [a, b] = await Promise.all([runCliProcess(['tools', '--format', 'json'], { cwd: dir.path }), runCliProcess(['tools', '--json'], { cwd: dir.path })]);
    expect(a.stdout).toBe(b.stdout);
  });

  test('an unknown format is a usage error', async () => {
    const run = await runCliProcess(['tools', '--format', 'xml'], { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/error: option '--format <format>' argument 'xml' is invalid\. Allowed choices are openai, openai-responses, anthropic, json\./);
  });

  test('select_tools is listed only with the flag and the model capability', async () => {
    const env = { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1' };
    const names = async (args: string[], e: Record<string, string>) =>
      (JSON.parse((await runCliProcess(['tools', '--json', ...args], { cwd: dir.path, env: e })).stdout) as Array<{ name: string }>).map((t) => t.name);
    expect(await names([], env)).not.toContain('select_tools');
    expect(await names(['--model-capability', 'dynamically_loaded_tools'], {})).not.toContain('select_tools');
    expect(await names(['--model-capability', 'image_in', '--model-capability', 'dynamically_loaded_tools'], env)).toContain('select_tools');
  });
});
