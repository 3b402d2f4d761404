import { IBuiltinToolAssemblyService } from '../../src/services/toolAssembly/builtinToolAssembly';
import { IAgentPromptInjection } from '../../src/services/promptInjection/promptInjection';
import {
  PROVIDER_TOOL_NAME_PATTERN,
  providerToolListProblems,
  toAnthropicTools,
  toOpenAiTools,
  type ModelToolSpec,
} from '../../src/tool/modelToolFormats';
import { ISubagentRunner } from '../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../src/tools/agent/scriptedRunner';
import { useAgent } from '../helpers/agentHarness';
import { FakeHost } from '../helpers/fakeHost';
import { writeFiles } from '../helpers/tempDir';

const fx = useAgent();

const spec: ModelToolSpec = {
  name: 'Read',
  description: 'Reads.',
  parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

describe('provider formats', () => {
  test('OpenAI: function tools, without $schema', () => {
    expect(toOpenAiTools([spec])).toEqual([
      {
        type: 'function',
        function: { name: 'Read', description: 'Reads.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } },
      },
    ]);
  });

  test('Anthropic: name, description, input_schema, without $schema', () => {
    expect(toAnthropicTools([spec])).toEqual([
      { name: 'Read', description: 'Reads.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } },
    ]);
  });

  test.each<[ModelToolSpec, string[]]>([
    [spec, []],
    [{ ...spec, name: 'mcp.server.tool' }, ['"mcp.server.tool": the name must match ^[a-zA-Z0-9_-]{1,64}$']],
    [{ ...spec, name: 'x'.repeat(65) }, [`"${'x'.repeat(65)}": the name must match ^[a-zA-Z0-9_-]{1,64}$`]],
    [{ ...spec, description: '' }, ['"Read": the description is empty']],
  ])('problems of %j', (tool, problems) => {
    expect(providerToolListProblems([tool])).toEqual(problems);
  });

  test('every builtin tool fits both APIs', async () => {
    // A host that answers questions, reviews plans, takes notifications and takes prompts, so AskUserQuestion, EnterPlanMode, NotifyUser and the cron tools are listed too.
    const interactions = new FakeHost({ question: () => ({ status: 'dismissed' }), notification: () => undefined, plan_review: () => ({ decision: 'reject' }) });
    // A skill, so the Skill tool is active (it is left out when there is none).
    writeFiles(fx.dir, { '.agents/skills/sample-skill/SKILL.md': '---\nname: sample-skill\ndescription: A sample skill.\n---\nDo it.\n' });
    // A search provider configured, so WebSearch is listed too.
    const webSearch = { provider: 'searxng', searxng: { baseUrl: 'http://127.0.0.1:9' } } as const;
    const { app, agent } = fx.open({
      builtins: true,
      config: { webSearch },
      interactions,
      env: { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1', TOOLHOST_EXPERIMENTAL_TOWER: '1' },
      modelCapabilities: ['dynamically_loaded_tools'],
      overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue({ enqueue: () => 'dropped' }),
      // A subagent runner, so Agent is listed too.
      appOverrides: (c) => c.bind(ISubagentRunner).toConstantValue(new ScriptedSubagentRunner({ text: 'done' })),
    });
    const tools = agent.modelTools();
    expect(tools.map((t) => t.name).sort()).toEqual(app.get(IBuiltinToolAssemblyService).contributions.map((c) => c.name).sort());
    expect(providerToolListProblems(tools)).toEqual([]);
    for (const tool of toOpenAiTools(tools)) {
      expect(tool.function.name).toMatch(PROVIDER_TOOL_NAME_PATTERN);
      expect(tool.function.parameters).toMatchObject({ type: 'object' });
      expect(tool.function.parameters).not.toHaveProperty('$schema');
    }
    for (const tool of toAnthropicTools(tools)) {
      expect(tool.name).toMatch(PROVIDER_TOOL_NAME_PATTERN);
      expect(tool.input_schema).toMatchObject({ type: 'object' });
    }
  });
});
