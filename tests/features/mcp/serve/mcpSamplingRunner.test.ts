import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CreateMessageRequest, CreateMessageRequestSchema, type CreateMessageResult, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { McpAgentServer } from '../../../../src/features/mcp/serve/mcpAgentServer';
import { McpSamplingSubagentRunner } from '../../../../src/features/mcp/serve/mcpSamplingRunner';
import { createAgentFeature } from '../../../../src/tools/agent/agentFeature';
import { ISubagentRunnerService } from '../../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../../src/tools/agent/scriptedRunner';
import { createOsToolsFeature } from '../../../../src/tools/os/osFeature';
import { useAgent } from '../../../helpers/agentHarness';
import { approveAll } from '../../../helpers/fakeHost';
import { runRequest } from '../../../helpers/subagentHandle';

const fixture = useAgent({ features: [createOsToolsFeature(), createAgentFeature()] });

type SamplingAnswer = (request: CreateMessageRequest) => CreateMessageResult | Record<string, unknown>;

/** The fixture's agent served to an SDK client that declares `capabilities` and answers sampling with `answer`. */
async function serve(capabilities: ClientCapabilities, answer?: SamplingAnswer) {
  const { agent, app } = fixture.open({ interactions: approveAll() });
  const logs: string[] = [];
  const mcp = new McpAgentServer(agent, { log: (m) => logs.push(m) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverTransport);
  const client = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities });
  const requests: CreateMessageRequest[] = [];
  if (answer) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      requests.push(request);
      return answer(request) as CreateMessageResult;
    });
  }
  await client.connect(clientTransport);
  await client.ping();
  const close = async () => {
    await client.close();
    await mcp.close();
  };
  return { agent, app, mcp, client, requests, logs, close };
}

describe('MCP sampling as the subagent runner of toolhost mcp serve', () => {
  test('a client with sampling tools becomes the runner: tool_use blocks run through the child executor and tool_result blocks go back', async () => {
    fs.writeFileSync(nodePath.join(fixture.dir, 'a.txt'), 'alpha\n');
    const served = await serve({ sampling: { tools: {} } }, (request) =>
      request.params.messages.length === 1
        ? {
            role: 'assistant',
            model: 'client-model',
            stopReason: 'toolUse',
            content: [
              { type: 'text', text: 'Reading first.' },
              { type: 'tool_use', id: 'use_1', name: 'Read', input: { path: 'a.txt' } },
              { type: 'tool_use', id: 'use_2', name: 'Write', input: { path: 'b.txt', content: 'beta\n' } },
            ],
          }
        : { role: 'assistant', model: 'client-model', stopReason: 'endTurn', content: { type: 'text', text: 'a.txt has alpha; b.txt written' } },
    );
    const runner = served.app.get(ISubagentRunnerService).current;
    expect(runner).toBeInstanceOf(McpSamplingSubagentRunner);
    expect(served.logs.join('\n')).toContain('subagents run on its model (sampling)');

    const result = await runner!.run(runRequest(served.agent, fixture.dir, { prompt: 'copy', profile: { instructions: 'Be brief.', model: 'claude-haiku' } }));
    expect(result).toMatchObject({ status: 'completed', text: 'a.txt has alpha; b.txt written', turns: 2 });
    expect(fs.readFileSync(nodePath.join(fixture.dir, 'b.txt'), 'utf8')).toBe('beta\n');

    const [first, second] = served.requests;
    expect(first!.params).toMatchObject({ systemPrompt: 'Be brief.', modelPreferences: { hints: [{ name: 'claude-haiku' }] }, messages: [{ role: 'user', content: { type: 'text', text: 'copy' } }] });
    expect(first!.params.tools!.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Read', 'Write']));
    expect(first!.params.tools!.find((tool) => tool.name === 'Read')!.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    const results = second!.params.messages.at(-1)!;
    expect(results.role).toBe('user');
    expect(results.content).toEqual([
      expect.objectContaining({ type: 'tool_result', toolUseId: 'use_1', content: [expect.objectContaining({ type: 'text', text: expect.stringContaining('alpha') })] }),
      expect.objectContaining({ type: 'tool_result', toolUseId: 'use_2' }),
    ]);
    await served.close();
    expect(served.app.get(ISubagentRunnerService).current).toBeUndefined();
  });

  test('a client error and maxTokens fail the run and say why', async () => {
    let n = 0;
    const served = await serve({ sampling: { tools: {} } }, () => {
      n++;
      if (n === 1) throw new Error('User rejected sampling request');
      return { role: 'assistant', model: 'm', stopReason: 'maxTokens', content: { type: 'text', text: 'cut' } };
    });
    const runner = served.app.get(ISubagentRunnerService).current!;
    const rejected = await runner.run(runRequest(served.agent, fixture.dir));
    expect(rejected).toMatchObject({ status: 'failed', turns: 1 });
    expect(rejected.error).toContain('The MCP client did not answer sampling/createMessage');
    expect(rejected.error).toContain('User rejected sampling request');
    const cut = await runner.run(runRequest(served.agent, fixture.dir));
    expect(cut).toMatchObject({ status: 'failed', text: 'cut' });
    expect(cut.error).toContain('hit maxTokens');
    await served.close();
  });

  test('an abort cancels the pending sampling request', async () => {
    let cancelled = false;
    const served = await serve({ sampling: { tools: {} } });
    served.client.setRequestHandler(CreateMessageRequestSchema, (_request, extra) => new Promise((_resolve, reject) => {
      extra.signal.addEventListener('abort', () => {
        cancelled = true;
        reject(new Error('cancelled'));
      });
    }));
    const controller = new AbortController();
    const running = served.app.get(ISubagentRunnerService).current!.run(runRequest(served.agent, fixture.dir, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await expect(running).resolves.toMatchObject({ status: 'aborted', turns: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toBe(true);
    await served.close();
  });

  test('a client without sampling tools, or an App that already has a runner, keeps the runner it had', async () => {
    const plain = await serve({ sampling: {} }, () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } }));
    expect(plain.app.get(ISubagentRunnerService).current).toBeUndefined();
    await plain.close();

    const hosts = new ScriptedSubagentRunner({ text: 'host' });
    const { agent, app } = fixture.open();
    app.get(ISubagentRunnerService).bind(hosts);
    const mcp = new McpAgentServer(agent);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverTransport);
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { sampling: { tools: {} } } });
    await client.connect(clientTransport);
    await client.ping();
    expect(app.get(ISubagentRunnerService).current).toBe(hosts);
    await client.close();
    await mcp.close();
    expect(app.get(ISubagentRunnerService).current).toBe(hosts);
  });
});
