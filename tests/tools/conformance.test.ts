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
import { SAMPLE_TASK_ID } from '../../src/tools/task/taskFormat';
import { useTempDir, writeFiles } from '../helpers/tempDir';

/**
 * Contract checks every builtin tool must pass, on the sample inputs each tool's contribution
 * brings (`samples`, defined beside its schema). A tool without samples fails the first test.
 */
const dir = useTempDir();

function allBuiltins() {
  // Deferred loading on, so select_tools is active too.
  const app = createApp({ features: builtinFeatures(), env: { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1' } });
  const agent = app.createAgent({ cwd: dir.path, modelCapabilities: ['dynamically_loaded_tools'] });
  const contributions = app.get(IBuiltinToolAssemblyService).contributions;
  const names = contributions.map((c) => c.name);
  const samples = new Map(contributions.map((c) => [c.name, c.samples ?? []]));
  return { app, agent, names, samples };
}

describe('every builtin tool', () => {
  test('brings sample inputs for this conformance suite', async () => {
    const { app, names, samples } = allBuiltins();
    expect(names.length).toBeGreaterThanOrEqual(11);
    expect(names.filter((n) => samples.get(n)!.length === 0)).toEqual([]);
    await app.dispose();
  });

  test('has a valid name, a rendered description and a schema ajv compiles, accepting its samples', async () => {
    const { app, agent, names, samples } = allBuiltins();
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, validateFormats: false });
    for (const name of names) {
      const tool = agent.registry.get(name)!.tool;
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(tool.description.length).toBeGreaterThan(100);
      expect(tool.description).not.toMatch(/\$\{[A-Za-z_]/);
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      const validate = ajv.compile(tool.parameters);
      for (const sample of samples.get(name)!) expect([name, validate(sample), validate.errors]).toEqual([name, true, null]);
      expect(validate({ ...(samples.get(name)![0] as object), not_a_parameter: 1 })).toBe(false);
    }
    await app.dispose();
  });

  test('resolveExecution opens no file, writes nothing and starts no process', async () => {
    writeFiles(dir.path, { 'src/a.ts': 'export {};\n' });
    const { app, agent, names, samples: samplesOf } = allBuiltins();
    // The task tools refuse unknown ids, so their samples name a real task.
    const task = agent.get(IAgentTaskService).startProcess({ command: 'sleep 30', cwd: dir.path, description: 'sample', env: process.env });
    const before = fs.readdirSync(dir.path, { recursive: true });
    for (const name of names) {
      const samples = JSON.parse(JSON.stringify(samplesOf.get(name)!).replaceAll(SAMPLE_TASK_ID, task.id)) as unknown[];
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
