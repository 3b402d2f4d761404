import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { OpenAiChatSubagentRunner } from '../../../src/features/subagentRunner/openAiChatRunner';
import { ISubagentRunnerConfigBinding } from '../../../src/features/subagentRunner/subagentRunnerBinding';
import { createSubagentRunnerFeature } from '../../../src/features/subagentRunner/subagentRunnerFeature';
import { type App, createApp } from '../../../src/scopes/appScope';
import { createAgentFeature } from '../../../src/tools/agent/agentFeature';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { createOsToolsFeature } from '../../../src/tools/os/osFeature';
import { type ChatCompletionsServer, completion, startChatCompletionsServer, toolCalls } from '../../helpers/chatCompletionsServer';
import { runRequest } from '../../helpers/subagentHandle';
import { useTempDir } from '../../helpers/tempDir';

const dir = useTempDir();
let server: ChatCompletionsServer;
let app: App | undefined;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(async () => {
  await app?.dispose();
  app = undefined;
  await server.close();
});

function open(config: Record<string, unknown>): App {
  app = createApp({ features: [createOsToolsFeature(), createAgentFeature(), createSubagentRunnerFeature()], config, env: { LOCAL_KEY: 'sk-local' } });
  return app;
}

describe('subagentRunner in toolhost.json', () => {
  test('binds an OpenAI-compatible runner when the first agent starts; it reads the key from the App environment and follows config edits', async () => {
    fs.writeFileSync(nodePath.join(dir.path, 'notes.txt'), 'from the config runner\n');
    const app = open({ subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'local-model', apiKeyEnv: 'LOCAL_KEY' } });
    const runners = app.get(ISubagentRunnerService);
    expect(runners.current).toBeUndefined();
    const agent = app.createAgent({ cwd: dir.path });
    expect(runners.current).toBeInstanceOf(OpenAiChatSubagentRunner);

    server.reply(toolCalls([{ name: 'Read', args: { path: 'notes.txt' } }]), completion('it says: from the config runner'));
    const result = await runners.current!.run(runRequest(agent, dir.path));
    expect(result).toMatchObject({ status: 'completed', text: 'it says: from the config runner', turns: 2 });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-local');
    expect(server.requests[0]!.body.model).toBe('local-model');
    expect(String(server.requests[1]!.body.messages.at(-1)!.content)).toContain('from the config runner');

    const first = runners.current;
    app.config.update({ subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'other-model' } });
    expect(runners.current).not.toBe(first);
    expect(app.get(ISubagentRunnerConfigBinding).current).toBe(runners.current);
    app.config.update({ subagentRunner: undefined });
    expect(runners.current).toBeUndefined();
  });

  test('a runner the host binds later stays when the section is removed', () => {
    const app = open({ subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'm' } });
    app.createAgent({ cwd: dir.path });
    const hosts = new ScriptedSubagentRunner({ text: 'host' });
    app.get(ISubagentRunnerService).bind(hosts);
    app.config.update({ subagentRunner: undefined });
    expect(app.get(ISubagentRunnerService).current).toBe(hosts);
  });

  test('without the section no runner is bound', () => {
    const app = open({});
    app.createAgent({ cwd: dir.path });
    expect(app.get(ISubagentRunnerService).current).toBeUndefined();
  });

  test('a key written where its variable name belongs, a bad URL and an unknown type are config errors that say what to write', () => {
    expect(() => open({ subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'm', apiKeyEnv: 'sk-proj-abc123' } })).toThrow(
      'subagentRunner.apiKeyEnv: the NAME of an environment variable (e.g. OPENAI_API_KEY), never the key itself',
    );
    expect(() => open({ subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'm', apiKey: 'sk-proj-abc123' } })).toThrow(/subagentRunner\.apiKey: unknown key/);
    expect(() => open({ subagentRunner: { type: 'openai', baseUrl: 'localhost:1234', model: 'm' } })).toThrow('subagentRunner.baseUrl: an http(s) URL of the API root');
    expect(() => open({ subagentRunner: { type: 'anthropic', baseUrl: server.baseUrl, model: 'm' } })).toThrow(/subagentRunner\.type/);
  });
});
