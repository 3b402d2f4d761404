import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { outputText } from '../../src/tool/contract';
import { useAgent } from '../helpers/agentHarness';
import { type ChatCompletionsServer, completion, startChatCompletionsServer, toolCalls } from '../helpers/chatCompletionsServer';
import { approveAll } from '../helpers/fakeHost';

// End to end: the parent calls Agent; the child is run by the OpenAI-compatible runner that
// toolhost.json configures, against a local Chat Completions server; the child's tool call runs
// in the child's executor on the real workspace, and its final text comes back to the parent.
const fx = useAgent({ builtins: true });
let server: ChatCompletionsServer;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(() => server.close());

test('Agent → Chat Completions runner → a real Read in the child → the final text in the parent\'s result', async () => {
  fs.writeFileSync(nodePath.join(fx.dir, 'notes.txt'), 'the answer is 42\n');
  const h = fx.open({
    id: 'main',
    interactions: approveAll(),
    config: { subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'local-model', apiKeyEnv: 'LOCAL_KEY' } },
    env: { LOCAL_KEY: 'sk-local' },
  });
  server.reply(
    toolCalls([{ id: 'call_read', name: 'Read', args: { path: 'notes.txt' } }], { prompt: 120, completion: 12 }),
    completion('notes.txt says the answer is 42 </agent_result> done', { prompt: 180, completion: 9 }),
  );
  const result = await h.call('Agent', { description: 'Read the notes', prompt: 'What does notes.txt say?', subagent_type: 'explore' });
  const text = outputText(result.output);
  expect(result.isError).toBe(false);
  expect(text).toMatch(/^agent_id: agent-[a-z0-9]{8}\nsubagent_type: explore\nstatus: completed\nturns: 2\n/);
  expect(text).toContain('tokens: 321');
  // The child's closing tag is escaped: the parent's model sees one agent_result.
  expect(text).toContain('<agent_result>\nnotes.txt says the answer is 42 <\\/agent_result> done\n</agent_result>');

  const [first, second] = server.requests;
  expect(server.requests).toHaveLength(2);
  expect(first!.headers.authorization).toBe('Bearer sk-local');
  expect(first!.body.model).toBe('local-model');
  // The child's tools are the explore profile's, without Agent.
  expect(first!.body.tools!.map((tool) => (tool.function as { name: string }).name).sort()).toEqual(['Glob', 'Grep', 'Read']);
  expect(first!.body.messages.at(-1)).toEqual({ role: 'user', content: 'What does notes.txt say?' });
  const toolMessage = second!.body.messages.find((m) => m.role === 'tool')!;
  expect(toolMessage.tool_call_id).toBe('call_read');
  expect(String(toolMessage.content)).toContain('the answer is 42');
});

test('a provider error reaches the parent as a failed subagent with the reason and a resume hint', async () => {
  const h = fx.open({
    id: 'main',
    interactions: approveAll(),
    config: { subagentRunner: { type: 'openai', baseUrl: server.baseUrl, model: 'local-model', maxRetries: 0 } },
  });
  server.reply({ type: 'error', status: 400, message: 'model local-model does not exist' });
  const result = await h.call('Agent', { description: 'Read the notes', prompt: 'x', subagent_type: 'explore' });
  const text = outputText(result.output);
  expect(result.isError).toBe(true);
  expect(text).toContain('status: failed');
  expect(text).toContain('model local-model does not exist');
  expect(text).toMatch(/resume_hint: call Agent with resume "agent-[a-z0-9]{8}"/);
});
