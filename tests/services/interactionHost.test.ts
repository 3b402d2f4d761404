import { interactionHost } from '../../src/services/interaction/interactionHost';
import { NoInteractionHostError } from '../../src/services/interaction/interaction';
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
