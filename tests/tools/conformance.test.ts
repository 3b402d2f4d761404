import fsp = require('node:fs/promises');
import * as fs from 'node:fs';
import { createApp } from '../../src/scopes/appScope';
import { IAgentTaskService } from '../../src/tools/task/contract';
import { IBuiltinToolAssemblyService } from '../../src/services/toolAssembly/builtinToolAssembly';
import type { ToolExecution } from '../../src/tool/contract';
import { checkToolConformance } from '../../src/tool/conformance';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';
import { SAMPLE_TASK_ID } from '../../src/tools/task/taskFormat';
import { SAMPLE_SKILL_NAME } from '../../src/features/skills/skillSchemas';
import { ISessionInteractionService } from '../../src/services/interaction/interaction';
import { IAgentPromptInjection } from '../../src/services/promptInjection/promptInjection';
import { ISubagentRunner } from '../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../src/tools/agent/scriptedRunner';
import { FakeHost } from '../helpers/fakeHost';
import { useTempDir, writeFiles } from '../helpers/tempDir';

/**
 * Every builtin tool passes the contract check that tool authors get (`checkToolConformance`), on
 * the sample inputs its contribution brings (`samples`, defined beside its schema). A tool
 * without samples fails here.
 */
const dir = useTempDir();

function allBuiltins() {
  // Deferred loading on, so select_tools is active too.
  // A search provider configured (never contacted: samples resolve without I/O), so WebSearch is active; a subagent runner bound, so Agent is active.
  const app = createApp({
    features: builtinFeatures(),
    env: { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1', TOOLHOST_EXPERIMENTAL_TOWER: '1' },
    config: { webSearch: { provider: 'searxng', searxng: { baseUrl: 'http://127.0.0.1:9' } } },
    overrides: (c) => c.bind(ISubagentRunner).toConstantValue(new ScriptedSubagentRunner({ text: 'done' })),
  });
  // A host that answers questions, takes notifications, reviews plans and takes prompts, so AskUserQuestion, NotifyUser, EnterPlanMode and the cron tools are active.
  const host = new FakeHost({ question: () => ({ status: 'dismissed' }), notification: () => undefined, plan_review: () => ({ decision: 'reject' }) });
  const agent = app.createAgent({
    cwd: dir.path,
    modelCapabilities: ['dynamically_loaded_tools'],
    overrides: (c) => {
      c.rebind(ISessionInteractionService).toConstantValue(host);
      c.rebind(IAgentPromptInjection).toConstantValue({ enqueue: () => 'dropped' });
    },
  });
  const contributions = app.get(IBuiltinToolAssemblyService).contributions;
  return { app, agent, contributions };
}

describe('every builtin tool', () => {
  test('is active, brings samples and conforms: name, description, schema, and resolveExecution without I/O', async () => {
    // A skill, so the Skill tool is active (it is left out when there is none).
    writeFiles(dir.path, { 'src/a.ts': 'export {};\n', [`.agents/skills/${SAMPLE_SKILL_NAME}/SKILL.md`]: '---\nname: sample-skill\ndescription: A sample skill for the conformance suite.\n---\nDo the sample thing.\n' });
    const { app, agent, contributions } = allBuiltins();
    expect(contributions.length).toBeGreaterThanOrEqual(11);
    // The task tools refuse unknown ids, so their samples name a real task.
    const task = agent.get(IAgentTaskService).startProcess({ command: 'sleep 30', cwd: dir.path, description: 'sample', env: process.env });
    const before = fs.readdirSync(dir.path, { recursive: true });
    for (const contribution of contributions) {
      const registration = agent.registry.get(contribution.name);
      expect([contribution.name, registration !== undefined]).toEqual([contribution.name, true]);
      const samples = JSON.parse(JSON.stringify(contribution.samples ?? []).replaceAll(SAMPLE_TASK_ID, task.id)) as unknown[];
      expect([contribution.name, await checkToolConformance(registration!.tool, samples, { minDescriptionChars: 100 })]).toEqual([contribution.name, []]);
    }
    expect(fs.readdirSync(dir.path, { recursive: true })).toEqual(before);
    await app.dispose();
  });
});

describe('checkToolConformance', () => {
  const goodSchema = { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false };
  const tool = (resolve: (input: never) => Promise<ToolExecution> | ToolExecution, overrides: Record<string, unknown> = {}) => ({
    name: 'Probe',
    description: 'Probes a file.',
    parameters: goodSchema,
    resolveExecution: resolve,
    ...overrides,
  });
  const ok = (): ToolExecution => ({ approvalRule: 'Probe', execute: async () => ({ output: '' }) });

  test('passes a conforming tool', async () => {
    expect(await checkToolConformance(tool(ok), [{ path: 'a' }])).toEqual([]);
  });

  test('catches a tool that reads a file while resolving, and restores fs afterwards', async () => {
    writeFiles(dir.path, { 'a.txt': 'x' });
    const readFile = fsp.readFile;
    const sneaky = tool(async () => {
      await fsp.readFile(`${dir.path}/a.txt`);
      return ok();
    });
    expect(await checkToolConformance(sneaky, [{ path: 'a' }])).toEqual(['resolveExecution of sample 1 did I/O: fs.promises.readFile']);
    expect(fsp.readFile).toBe(readFile);
  });

  test('names every other breach', async () => {
    const bad = tool(
      (input: { path?: string }) => {
        if (input.path === 'boom') throw new Error('kaput');
        return input.path === 'no' ? { output: 'refused', isError: true } : { approvalRule: 5 as unknown as string, display: { kind: 'nope' } as never, execute: async () => ({ output: '' }) };
      },
      { name: 'bad name', description: 'Uses ${MISSING}.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    );
    expect(await checkToolConformance(bad, [{ path: 'x' }, { path: 3 }, { path: 'no' }, { path: 'boom' }], { minDescriptionChars: 100 })).toEqual([
      'name "bad name" must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$',
      'the description has 16 characters; it needs 100 at least',
      'the description has an unfilled ${…} placeholder',
      'parameters must be an object schema with additionalProperties: false',
      'sample 2 does not match the schema: [{"instancePath":"/path","schemaPath":"#/properties/path/type","keyword":"type","params":{"type":"string"},"message":"must be string"}]',
      'the schema accepts an unknown parameter',
      'resolveExecution of sample 1 gave no approvalRule string',
      'resolveExecution of sample 1 gave a display that is not a ToolInputDisplay',
      'resolveExecution of sample 2 gave no approvalRule string',
      'resolveExecution of sample 2 gave a display that is not a ToolInputDisplay',
      'resolveExecution refused sample 3: refused',
      'resolveExecution threw on sample 4: kaput',
    ]);
    expect(await checkToolConformance(tool(ok), [])).toEqual(['no sample inputs to check']);
  });
});
