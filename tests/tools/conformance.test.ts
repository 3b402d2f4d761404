// `import x = require()` gives the module objects themselves, whose functions jest can spy on.
import childProcess = require('node:child_process');
import fs = require('node:fs');
import fsp = require('node:fs/promises');
import { Ajv } from 'ajv';
import { createApp } from '../../src/scopes/appScope';
import { IAgentTaskService } from '../../src/tools/task/contract';
import { IBuiltinToolAssemblyService } from '../../src/services/toolAssembly/builtinToolAssembly';
import { type AgentTool, TOOL_NAME_PATTERN } from '../../src/di/toolContribution';
import { ToolInputDisplaySchema } from '../../src/tool/display';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';
import { useTempDir, writeFiles } from '../helpers/tempDir';

/**
 * Contract checks every builtin tool must pass. A new tool adds sample inputs here; the first
 * test fails until it does.
 */
/** Replaced by the id of a real running task before the task tools resolve their samples. */
const SAMPLE_TASK = '<sample-task>';
const SAMPLE_INPUTS: Record<string, readonly unknown[]> = {
  Read: [{ path: 'src/a.ts' }, { path: 'src/a.ts', line_offset: -10 }, { path: 'new/missing.txt', n_lines: 3 }],
  select_tools: [{ names: ['mcp__github__create_issue'] }, { names: ['a', 'b'] }],
  Write: [{ path: 'src/a.ts', content: 'export {};\n' }, { path: 'new/dir/b.txt', content: '', mode: 'append' }],
  Edit: [
    { path: 'src/a.ts', old_string: 'export', new_string: 'import' },
    { path: 'src/a.ts', old_string: '{}', new_string: '', replace_all: true },
  ],
  Bash: [
    { command: 'npm test' },
    { command: 'ls -la src && git status', cwd: 'src', timeout: 10, description: 'List files' },
    { command: 'cat ../outside.txt /etc/hostname ~/x', cwd: '.' },
    { command: 'sleep 5', run_in_background: true, description: 'Sleep' },
  ],
  TaskList: [{}, { active_only: true, limit: 5 }],
  TaskOutput: [{ task_id: SAMPLE_TASK }, { task_id: SAMPLE_TASK, offset: 0 }, { task_id: SAMPLE_TASK, tail_lines: 10 }],
  TaskStop: [{ task_id: SAMPLE_TASK }, { task_id: SAMPLE_TASK, reason: 'no longer needed' }],
  WaitFor: [{}, { task_ids: [SAMPLE_TASK], mode: 'any', timeout: 5 }],
  Glob: [{ pattern: '**/*.ts' }, { pattern: 'src/*.ts', path: 'src', include_ignored: true, offset: 10, limit: 5 }],
  Grep: [
    { pattern: 'export' },
    { pattern: 'class\\s+\\w+', path: 'src', glob: 'src/**/*.ts', type: 'ts', output_mode: 'content', '-i': true, '-n': false, '-C': 2, head_limit: 10, offset: 5 },
    { pattern: 'a\\nb', multiline: true, include_ignored: true, output_mode: 'count_matches', '-A': 1, '-B': 1 },
  ],
};

const dir = useTempDir();

function allBuiltins() {
  // Deferred loading on, so select_tools is active too.
  const app = createApp({ features: builtinFeatures(), env: { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1' } });
  const agent = app.createAgent({ cwd: dir.path, modelCapabilities: ['dynamically_loaded_tools'] });
  const names = app.get(IBuiltinToolAssemblyService).contributions.map((c) => c.name);
  return { app, agent, names };
}

describe('every builtin tool', () => {
  test('has sample inputs in this conformance suite', async () => {
    const { app, names } = allBuiltins();
    expect(names.filter((n) => !(n in SAMPLE_INPUTS))).toEqual([]);
    await app.dispose();
  });

  test('has a valid name, a rendered description and a schema ajv compiles, accepting its samples', async () => {
    const { app, agent, names } = allBuiltins();
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, validateFormats: false });
    for (const name of names) {
      const tool = agent.registry.get(name)!.tool;
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(tool.description.length).toBeGreaterThan(100);
      expect(tool.description).not.toMatch(/\$\{[A-Za-z_]/);
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      const validate = ajv.compile(tool.parameters);
      for (const sample of SAMPLE_INPUTS[name] ?? []) expect([name, validate(sample), validate.errors]).toEqual([name, true, null]);
      expect(validate({ ...(SAMPLE_INPUTS[name]![0] as object), not_a_parameter: 1 })).toBe(false);
    }
    await app.dispose();
  });

  test('resolveExecution opens no file, writes nothing and starts no process', async () => {
    writeFiles(dir.path, { 'src/a.ts': 'export {};\n' });
    const { app, agent, names } = allBuiltins();
    // The task tools refuse unknown ids, so their samples name a real task.
    const task = agent.get(IAgentTaskService).startProcess({ command: 'sleep 30', cwd: dir.path, description: 'sample', env: process.env });
    const before = fs.readdirSync(dir.path, { recursive: true });
    for (const name of names) {
      const samples = JSON.parse(JSON.stringify(SAMPLE_INPUTS[name]!).replaceAll(SAMPLE_TASK, task.id)) as unknown[];
      expect([name, await ioDuringResolve(agent.registry.get(name)!.tool, samples)]).toEqual([name, []]);
    }
    expect(fs.readdirSync(dir.path, { recursive: true })).toEqual(before);
    await app.dispose();
  });

  test('the check catches a tool that reads a file while resolving', async () => {
    writeFiles(dir.path, { 'a.txt': 'x' });
    const sneaky = {
      name: 'Sneaky',
      description: '',
      parameters: {},
      resolveExecution: async () => {
        await fsp.readFile(`${dir.path}/a.txt`);
        return { approvalRule: 'Sneaky', execute: async () => ({ output: '' }) };
      },
    };
    expect(await ioDuringResolve(sneaky, [{}])).toEqual(['fs.promises.readFile']);
  });
});

/** The forbidden I/O functions a tool called while resolving its sample inputs. */
async function ioDuringResolve(tool: AgentTool, samples: readonly unknown[]): Promise<string[]> {
  // The description is rendered first: its template is read once and cached.
  void tool.description;
  const spies = [
    ...(['openSync', 'readFileSync', 'writeFileSync', 'mkdirSync', 'readdirSync', 'rmSync', 'renameSync'] as const).map((f) => [`fs.${f}`, jest.spyOn(fs, f)] as const),
    ...(['open', 'readFile', 'writeFile', 'mkdir', 'readdir', 'rm', 'rename'] as const).map((f) => [`fs.promises.${f}`, jest.spyOn(fsp, f)] as const),
    ...(['spawn', 'exec', 'execFile', 'spawnSync', 'execSync'] as const).map((f) => [`child_process.${f}`, jest.spyOn(childProcess, f)] as const),
  ];
  try {
    for (const sample of samples) {
      const execution = await tool.resolveExecution(sample as never);
      if (execution.isError) throw new Error(`${tool.name} refused its sample ${JSON.stringify(sample)}: ${String(execution.output)}`);
      expect(typeof execution.approvalRule).toBe('string');
      if (execution.display) expect(ToolInputDisplaySchema.safeParse(execution.display).success).toBe(true);
    }
    return spies.filter(([, spy]) => spy.mock.calls.length > 0).map(([label]) => label);
  } finally {
    for (const [, spy] of spies) spy.mockRestore();
  }
}
