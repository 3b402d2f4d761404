import { interactionHost } from '../../src/services/interaction/interactionHost';
import { ISessionInteractionService, NoInteractionHostError } from '../../src/services/interaction/interaction';
import { IAgentUserToolService } from '../../src/services/userTools/userTools';
import { createApp } from '../../src/scopes/appScope';
import { AgentCreationError } from '../../src/scopes/agentScope';
import { approve, approveAll, FakeHost } from '../helpers/fakeHost';
import { testTool } from '../helpers/testTools';
import { useAgent } from '../helpers/agentHarness';

const fx = useAgent();

describe('interactionHost', () => {
  test('typed handlers per kind (no casts) answer their kinds; other kinds have nobody', async () => {
    const seen: string[] = [];
    const host = interactionHost(
      {
        approval: (request) => {
          seen.push(`approve ${request.toolName}: ${request.description}`);
          return request.toolName === 'Safe' ? { decision: 'approve' } : { decision: 'reject', feedback: 'not that one' };
        },
        user_tool: async (request) => ({ output: `ran ${request.name} with ${JSON.stringify(request.args)}` }),
      },
      { unavailableHint: 'answer in the web UI' },
    );
    expect(host.canRequest('approval')).toBe(true);
    expect(host.canRequest('user_tool')).toBe(true);
    expect(host.canRequest('notification')).toBe(false);
    expect(host.unavailableHint).toBe('answer in the web UI');
    await expect(host.request({ kind: 'notification', title: 'hi' }, new AbortController().signal)).rejects.toThrow(
      new NoInteractionHostError('This host does not answer "notification" requests.'),
    );

    const h = fx.open({ tools: [testTool('Safe'), testTool('Risky')], interactions: host });
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Safe', arguments: {} },
      { id: 'b', name: 'Risky', arguments: {} },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome])).toEqual([
      ['a', 'executed'],
      ['b', 'denied'],
    ]);
    expect(results[1]!.output).toContain('not that one');
    expect(seen).toEqual(['approve Safe: Safe {}', 'approve Risky: Risky {}']);
  });
});

describe('rebinding the interaction service after createAgent', () => {
  const rebind = (host: ISessionInteractionService) => fx.agent.container.rebind(ISessionInteractionService).toConstantValue(host);

  test('approvals go to the new host; the old one sees nothing', async () => {
    const oldHost = approveAll();
    fx.open({ tools: [testTool('Risky')], interactions: oldHost });
    // The approval service already exists: the executor was used once with the old host.
    expect((await fx.agent.executor.execute([{ id: 'a', name: 'Risky', arguments: {} }]))[0]!.outcome).toBe('executed');
    expect(oldHost.approvals.map((r) => r.toolCallId)).toEqual(['a']);

    const newHost = new FakeHost({ approval: () => ({ decision: 'reject', feedback: 'the new host says no' }) });
    rebind(newHost);
    const [result] = await fx.agent.executor.execute([{ id: 'b', name: 'Risky', arguments: {} }]);
    expect(result).toMatchObject({ outcome: 'denied' });
    expect(result!.output).toContain('the new host says no');
    expect(newHost.approvals.map((r) => r.toolCallId)).toEqual(['b']);
    expect(oldHost.approvals.map((r) => r.toolCallId)).toEqual(['a']);
  });

  test('an agent created with no host gets one by rebinding: approvals and user tools reach it', async () => {
    fx.open({ tools: [testTool('Risky')] });
    fx.agent.get(IAgentUserToolService).register({ name: 'deploy', description: 'Deploys.' });
    expect((await fx.agent.executor.execute([{ id: 'a', name: 'Risky', arguments: {} }]))[0]!.output).toContain('there is no one to approve it');

    const host = new FakeHost({ approval: approve, user_tool: (request) => ({ output: `host ran ${request.name}` }) });
    rebind(host);
    const results = await fx.agent.executor.execute([
      { id: 'b', name: 'Risky', arguments: {} },
      { id: 'c', name: 'deploy', arguments: {} },
    ]);
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'Risky done'],
      ['executed', 'host ran deploy'],
    ]);
    expect(host.requests.map((r) => `${r.kind}:${'toolCallId' in r ? r.toolCallId : ''}`)).toEqual(['approval:b', 'user_tool:c']);
  });

  test('binding it in the App container, where agents never look, is refused at createAgent with what to do instead', () => {
    const app = createApp({ features: [], overrides: (c) => c.bind(ISessionInteractionService).toConstantValue(approveAll()) });
    try {
      expect(() => app.createAgent({ cwd: fx.dir })).toThrow(
        new AgentCreationError(
          'ISessionInteractionService is bound in the App container, but every agent binds its own, so that binding would never be asked. ' +
            'Bind the host per agent instead: createAgent({ overrides: (c) => c.rebind(ISessionInteractionService).toConstantValue(host) }), ' +
            'or later agent.container.rebind(ISessionInteractionService).toConstantValue(host).',
        ),
      );
    } finally {
      void app.dispose();
    }
  });
});
