import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import OpenAI from 'openai';
import { OpenAiChatSubagentRunner, type OpenAiChatRunnerOptions } from '../../../src/features/subagentRunner/openAiChatRunner';
import { toOpenAiTools } from '../../../src/tool/modelToolFormats';
import type { SubagentRunEvent } from '../../../src/tools/agent/contract';
import { createOsToolsFeature } from '../../../src/tools/os/osFeature';
import { useAgent } from '../../helpers/agentHarness';
import { type ChatCompletionsServer, completion, startChatCompletionsServer, toolCalls } from '../../helpers/chatCompletionsServer';
import { approveAll } from '../../helpers/fakeHost';
import { runRequest } from '../../helpers/subagentHandle';

const fixture = useAgent({ features: [createOsToolsFeature()] });
let server: ChatCompletionsServer;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(() => server.close());

function runner(options: Partial<OpenAiChatRunnerOptions> = {}): OpenAiChatSubagentRunner {
  return new OpenAiChatSubagentRunner({ baseUrl: server.baseUrl, model: 'test-model', apiKeyEnv: 'TEST_OPENAI_KEY', env: { TEST_OPENAI_KEY: 'sk-test-123' }, ...options });
}

describe('OpenAiChatSubagentRunner against a local Chat Completions server', () => {
  test('runs tool_calls through the child executor, sends the results as role tool messages, and answers with the final text', async () => {
    fs.writeFileSync(nodePath.join(fixture.dir, 'a.txt'), 'alpha\n');
    const { agent } = fixture.open({ interactions: approveAll() });
    server.reply(
      toolCalls(
        [
          { id: 'call_read', name: 'Read', args: { path: 'a.txt' } },
          { id: 'call_write', name: 'Write', args: { path: 'b.txt', content: 'beta\n' } },
        ],
        { prompt: 100, completion: 20 },
      ),
      toolCalls([{ id: 'call_bad', name: 'Read', args: '{"path": ' }], { prompt: 150, completion: 5 }),
      completion('a.txt says alpha; wrote b.txt', { prompt: 200, completion: 10 }),
    );
    const events: SubagentRunEvent[] = [];
    const result = await runner().run(runRequest(agent, fixture.dir, { prompt: 'copy things', profile: { instructions: 'You are a careful child.' }, events }));

    expect(result).toMatchObject({ status: 'completed', text: 'a.txt says alpha; wrote b.txt', turns: 3, usage: { inputTokens: 450, outputTokens: 35, totalTokens: 485 } });
    expect(fs.readFileSync(nodePath.join(fixture.dir, 'b.txt'), 'utf8')).toBe('beta\n');

    const [first, second, third] = server.requests;
    expect(first!.headers.authorization).toBe('Bearer sk-test-123');
    expect(first!.body.model).toBe('test-model');
    expect(first!.body.messages).toEqual([
      { role: 'system', content: 'You are a careful child.' },
      { role: 'user', content: 'copy things' },
    ]);
    expect(first!.body.tools).toEqual(JSON.parse(JSON.stringify(toOpenAiTools(agent.modelTools()))));
    expect(first!.body.tools!.map((tool) => (tool.function as { name: string }).name)).toEqual(expect.arrayContaining(['Read', 'Write']));

    const replies = second!.body.messages.slice(2);
    expect(replies[0]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ id: 'call_read', type: 'function' }, { id: 'call_write' }] });
    expect(replies[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_read' });
    expect(replies[1]!.content).toContain('alpha');
    expect(replies[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_write' });
    // Bad JSON arguments reach the model as a tool error, not a failed run.
    const badReply = third!.body.messages.at(-1)!;
    expect(badReply).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' });
    expect(String(badReply.content)).toMatch(/JSON/i);

    expect(events.filter((e) => e.type === 'turn')).toEqual([1, 2, 3].map((turn) => ({ type: 'turn', turn })));
    expect(events).toContainEqual({ type: 'usage', usage: { inputTokens: 450, outputTokens: 35, totalTokens: 485 } });
    expect(events.at(-1)).toEqual({ type: 'text', text: 'a.txt says alpha; wrote b.txt' });
  });

  test('resume continues the returned conversation with the new prompt as the next user message', async () => {
    const { agent } = fixture.open();
    server.reply(completion('first answer'), completion('second answer'));
    const first = await runner().run(runRequest(agent, fixture.dir, { prompt: 'one' }));
    const second = await runner().run(runRequest(agent, fixture.dir, { prompt: 'two', resumeFrom: first.conversation }));
    expect(second).toMatchObject({ status: 'completed', text: 'second answer', turns: 1 });
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'two' },
    ]);
  });

  test('a 429 with retry-after is waited out and retried; the wait is reported', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 429, message: 'Rate limit reached for test-model', headers: { 'retry-after': '1', 'retry-after-ms': '40' } }, completion('done'));
    const events: SubagentRunEvent[] = [];
    const result = await runner().run(runRequest(agent, fixture.dir, { events }));
    expect(result).toMatchObject({ status: 'completed', text: 'done', turns: 1 });
    expect(server.requests).toHaveLength(2);
    expect(events).toContainEqual({ type: 'rate_limited', retryAfterMs: 40 });
  });

  test('a 429 that asks for longer than maxRetryWaitMs fails at once with retryAfterMs', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 429, message: 'Rate limit reached for requests', headers: { 'retry-after': '120' } });
    const started = Date.now();
    const result = await runner({ maxRetryWaitMs: 5_000 }).run(runRequest(agent, fixture.dir));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ status: 'failed', retryAfterMs: 120_000, turns: 1 });
    expect(result.error).toContain('HTTP 429: Rate limit reached for requests');
    expect(result.error).toContain('more than maxRetryWaitS');
    expect(server.requests).toHaveLength(1);
  });

  test('5xx answers are retried with backoff up to maxRetries, then the run fails with the last error', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 502, message: 'upstream down' }, { type: 'error', status: 500, message: 'still down' });
    const result = await runner({ maxRetries: 1 }).run(runRequest(agent, fixture.dir));
    expect(result).toMatchObject({ status: 'failed', turns: 1 });
    expect(result.error).toMatch(/HTTP 500: still down \(gave up: after 2 attempts\)\.$/);
    expect(result.retryAfterMs).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  test('a 400 error body fails the run with the provider\'s message, without retries', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 400, message: "Invalid schema for function 'Read'" });
    const result = await runner().run(runRequest(agent, fixture.dir));
    expect(result).toMatchObject({ status: 'failed', error: `${server.baseUrl}/chat/completions answered HTTP 400: Invalid schema for function 'Read'.` });
    expect(server.requests).toHaveLength(1);
  });

  test('a 401 names the key variable; a missing key variable fails before any request', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 401, message: 'Incorrect API key provided' });
    const refused = await runner().run(runRequest(agent, fixture.dir));
    expect(refused.error).toContain('Incorrect API key provided. The provider refused the key in TEST_OPENAI_KEY.');
    const missing = await runner({ env: {} }).run(runRequest(agent, fixture.dir));
    expect(missing).toMatchObject({ status: 'failed', turns: 0, error: 'The API key variable TEST_OPENAI_KEY (subagentRunner.apiKeyEnv) is not set; export it in the environment toolhost runs in.' });
    expect(server.requests).toHaveLength(1);
  });

  test('finish_reason length and content_filter fail the run and say why', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'completion', content: 'partial answ', finishReason: 'length' }, { type: 'completion', content: '', finishReason: 'content_filter' });
    const cut = await runner().run(runRequest(agent, fixture.dir));
    expect(cut).toMatchObject({ status: 'failed', text: 'partial answ' });
    expect(cut.error).toContain('finish_reason "length"');
    const filtered = await runner().run(runRequest(agent, fixture.dir));
    expect(filtered).toMatchObject({ status: 'failed', text: '' });
    expect(filtered.error).toContain('content filter');
  });

  test('the profile turn limit ends a model that keeps calling tools', async () => {
    fs.writeFileSync(nodePath.join(fixture.dir, 'a.txt'), 'alpha\n');
    const { agent } = fixture.open();
    server.reply(...[1, 2, 3].map((n) => toolCalls([{ id: `c${n}`, name: 'Read', args: { path: 'a.txt' } }])));
    const result = await runner().run(runRequest(agent, fixture.dir, { profile: { maxTurns: 2 } }));
    expect(result).toMatchObject({ status: 'failed', turns: 2 });
    expect(result.error).toContain('used its 2 model turns');
    expect(server.requests).toHaveLength(2);
  });

  test('a stalled server fails the run after requestTimeoutMs; an abort ends a stalled request at once', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'stall' }, { type: 'stall' });
    const started = Date.now();
    const timedOut = await runner({ requestTimeoutMs: 300 }).run(runRequest(agent, fixture.dir));
    expect(timedOut).toMatchObject({ status: 'failed', turns: 1, error: `${server.baseUrl}/chat/completions did not answer within 0.3 s (subagentRunner.requestTimeoutS).` });
    expect(Date.now() - started).toBeLessThan(5_000);

    const controller = new AbortController();
    const running = runner().run(runRequest(agent, fixture.dir, { signal: controller.signal }));
    await server.requestsArrived(2);
    controller.abort();
    await expect(running).resolves.toMatchObject({ status: 'aborted', turns: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.abandoned).toBe(2);
  });

  test('an abort during a retry wait ends the run as aborted without another request', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '20' } });
    const controller = new AbortController();
    const running = runner().run(runRequest(agent, fixture.dir, { signal: controller.signal }));
    await server.requestsArrived(1);
    setTimeout(() => controller.abort(), 50);
    await expect(running).resolves.toMatchObject({ status: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });

  test('a body that is not a Chat Completions response fails the run with what is wrong', async () => {
    const { agent } = fixture.open();
    server.reply({ type: 'raw', status: 200, body: '{"object":"list","data":[]}' }, { type: 'raw', status: 200, body: '<html>proxy</html>' });
    const noChoices = await runner().run(runRequest(agent, fixture.dir));
    expect(noChoices.error).toBe(`${server.baseUrl}/chat/completions did not answer with a Chat Completions response: it has no "choices".`);
    const notJson = await runner().run(runRequest(agent, fixture.dir));
    expect(notJson.error).toContain('a body that is not JSON: <html>proxy</html>');
  });

  test('bad options are refused when the runner is made', () => {
    expect(() => new OpenAiChatSubagentRunner({ baseUrl: 'api example', model: 'm' })).toThrow('baseUrl "api example" is not a URL');
    expect(() => new OpenAiChatSubagentRunner({ baseUrl: 'localhost:8080', model: 'm' })).toThrow('baseUrl "localhost:8080" is not an http or https URL');
    expect(() => new OpenAiChatSubagentRunner({ baseUrl: 'http://x/v1', model: ' ' })).toThrow('needs a model name');
  });
});

describe('the local test server speaks the real wire format', () => {
  test('the openai SDK reads its tool_calls and error bodies', async () => {
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-sdk', maxRetries: 0 });
    server.reply(toolCalls([{ id: 'call_1', name: 'Read', args: { path: 'a.txt' } }], { prompt: 3, completion: 4 }), {
      type: 'error',
      status: 429,
      message: 'Rate limit reached',
      headers: { 'retry-after': '2' },
    });
    const answer = await client.chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'Read', description: 'reads', parameters: { type: 'object', properties: {} } } }],
    });
    const call = answer.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ path: 'a.txt' });
    expect(answer.choices[0]!.finish_reason).toBe('tool_calls');
    expect(answer.usage?.total_tokens).toBe(7);
    const refused = await client.chat.completions.create({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('2');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-sdk');
  });
});
