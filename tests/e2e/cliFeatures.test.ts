import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cliStdioEnv, runCliProcess } from '../helpers/cliProcess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';

jest.setTimeout(60_000);

const ROOT = nodePath.resolve(__dirname, '../..');

// A third-party feature package, as an ES module that depends on toolhost (like
// examples/custom-tool): its classes, service ids and inversify come from `import 'toolhost'`.
const GREET_PACKAGE = {
  'package.json': JSON.stringify({ name: 'toolhost-feature-greet', type: 'module', main: 'index.js', dependencies: { toolhost: '^0.1.0' } }),
  'index.js': `
import { Feature, IConfigService, IAgentWorkspaceService, createServiceId, defineConfigSection, inject, injectable, registerAgentToolService, toInputJsonSchema, z } from 'toolhost';

const greetConfig = defineConfigSection('greet', z.strictObject({ greeting: z.string().default('Hello') }).prefault({}));
const GreetInput = z.object({ name: z.string().describe('Whom to greet') });

class GreetTool {
  name = 'Greet';
  description = 'Greets someone by name.';
  parameters = toInputJsonSchema(GreetInput);
  constructor(config, workspace) {
    this.config = config;
    this.workspace = workspace;
  }
  resolveExecution(input) {
    return {
      accesses: [],
      approval: 'auto',
      approvalRule: 'Greet',
      description: 'Greeting ' + input.name,
      execute: async () => ({ output: this.config.section(greetConfig).greeting + ', ' + input.name + ' (in ' + this.workspace.cwd + ')' }),
    };
  }
}
inject(IConfigService)(GreetTool, undefined, 0);
inject(IAgentWorkspaceService)(GreetTool, undefined, 1);
injectable()(GreetTool);

const greetTool = registerAgentToolService(createServiceId('greet.Greet'), GreetTool, { name: 'Greet', domain: 'greet', requiredRuntimeCapabilities: [] });
export default new Feature('greet').contributeConfig(greetConfig).contributeTool(greetTool);
`,
};

// A local CommonJS module next to the config file, exporting a list of features.
const LOCAL_MODULE = `
const { Feature, createServiceId, injectable, registerAgentToolService, toInputJsonSchema, z } = require('toolhost');
class ShoutTool {
  name = 'Shout';
  description = 'Shouts the text.';
  parameters = toInputJsonSchema(z.object({ text: z.string() }));
  resolveExecution(input) {
    return { accesses: [], approval: 'auto', approvalRule: 'Shout', execute: async () => ({ output: input.text.toUpperCase() + '!' }) };
  }
}
injectable()(ShoutTool);
const shout = registerAgentToolService(createServiceId('local.Shout'), ShoutTool, { name: 'Shout', domain: 'local', requiredRuntimeCapabilities: [] });
module.exports = { features: [new Feature('shout').contributeTool(shout)] };
`;

let root: string;
let ws: string;
beforeEach(() => {
  root = makeTempDir('toolhost-cli-features-');
  ws = nodePath.join(root, 'ws');
  writeFiles(root, {
    ...Object.fromEntries(Object.entries(GREET_PACKAGE).map(([file, text]) => [`greet-pkg/${file}`, text])),
    // The workspace is a package of its own (as projects are): the config's modules resolve from it.
    'ws/package.json': JSON.stringify({ name: 'workspace', private: true }),
    'ws/config/shout.cjs': LOCAL_MODULE,
    'ws/config/toolhost.json': JSON.stringify({ features: ['toolhost-feature-greet', './shout.cjs'], greet: { greeting: 'Howdy' } }),
  });
  // What `npm install` would give: the package depends on toolhost (this repository); the config
  // folder has the package and toolhost installed (the local module requires toolhost too).
  fs.mkdirSync(nodePath.join(root, 'greet-pkg', 'node_modules'));
  fs.symlinkSync(ROOT, nodePath.join(root, 'greet-pkg', 'node_modules', 'toolhost'));
  fs.mkdirSync(nodePath.join(ws, 'config', 'node_modules'));
  fs.symlinkSync(nodePath.join(root, 'greet-pkg'), nodePath.join(ws, 'config', 'node_modules', 'toolhost-feature-greet'));
  fs.symlinkSync(ROOT, nodePath.join(ws, 'config', 'node_modules', 'toolhost'));
});
afterEach(() => removeDir(root));

const CONFIG = ['--config', 'config/toolhost.json'];

describe('config features in the CLI', () => {
  test('a package and a local module load into `toolhost tools` and `toolhost run`, with their config sections', async () => {
    const tools = await runCliProcess(['tools', '--json', ...CONFIG], { cwd: ws });
    expect(tools.stderr).toBe('');
    expect(tools.code).toBe(0);
    const listed = JSON.parse(tools.stdout) as Array<{ name: string; source: string; parameters: unknown }>;
    expect(listed.filter((t) => t.name === 'Greet' || t.name === 'Shout')).toEqual([
      expect.objectContaining({ name: 'Greet', source: 'builtin', parameters: expect.objectContaining({ properties: { name: { type: 'string', description: 'Whom to greet' } } }) }),
      expect.objectContaining({ name: 'Shout', source: 'builtin' }),
    ]);
    expect(listed.map((t) => t.name)).toContain('Read');

    const batch = JSON.stringify([
      { id: 'g', name: 'Greet', arguments: { name: 'Ada' } },
      { id: 's', name: 'Shout', arguments: { text: 'hi' } },
    ]);
    const run = await runCliProcess(['run', '--json', ...CONFIG, '-'], { cwd: ws, input: batch });
    expect(run.code).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ id: string; output: string; outcome: string }> };
    expect(results.map((r) => [r.id, r.outcome, r.output])).toEqual([
      ['g', 'executed', `Howdy, Ada (in ${fs.realpathSync(ws)})`],
      ['s', 'executed', 'HI!'],
    ]);
  });

  test('`toolhost mcp serve` serves the tools of configured features', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--no-watch', ...CONFIG], cwd: ws, env: cliStdioEnv(), stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'e2e-client', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['Greet', 'Shout', 'Read']));
      const result = await client.callTool({ name: 'Greet', arguments: { name: 'Grace' } });
      expect(result.content).toEqual([{ type: 'text', text: `Howdy, Grace (in ${fs.realpathSync(ws)})` }]);
    } finally {
      await client.close();
    }
    expect(stderr).not.toContain('error');
  });

  test.each<[string, Record<string, string>, string]>([
    ['a missing module', { 'toolhost.json': JSON.stringify({ features: ['./nowhere.js'] }) }, 'features: module "./nowhere.js" was not found from'],
    ['a module that throws on load', { 'toolhost.json': JSON.stringify({ features: ['./bad.cjs'] }), 'bad.cjs': "throw new Error('broken on purpose');" }, 'features: module "./bad.cjs" threw while loading: broken on purpose'],
    ['a module exporting no Feature', { 'toolhost.json': JSON.stringify({ features: ['./none.cjs'] }), 'none.cjs': 'module.exports = { answer: 42 };' }, 'features: module "./none.cjs" exports no Feature: export one'],
    [
      'a feature the App refuses',
      { 'toolhost.json': JSON.stringify({ features: ['./dup.cjs'] }), 'dup.cjs': "const { Feature } = require('toolhost'); module.exports = new Feature('os');" },
      'features: module "./dup.cjs" was refused: Feature "os" is already part of this App.',
    ],
    ['a features value that is not a list', { 'toolhost.json': JSON.stringify({ features: './one.js' }) }, '"features" must be an array of module paths'],
  ])('%s is a clear error naming the module, exit code 2', async (_what, files, message) => {
    writeFiles(ws, Object.fromEntries(Object.entries(files).map(([file, text]) => [`config/${file}`, text])));
    for (const command of [['tools'], ['run', '-']]) {
      const run = await runCliProcess([...command, ...CONFIG], { cwd: ws, input: '[]' });
      expect(run.stderr).toContain(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.code).toBe(2);
    }
  });
});
