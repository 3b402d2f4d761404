import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Agent } from '../../../src/scopes/agentScope';
import type { SubagentRunEvent, SubagentRunRequest } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { createOsToolsFeature } from '../../../src/tools/os/osFeature';
import { useAgent } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';
// A handle over a plain agent: the scripted runner needs nothing more than the contract.
import { handleOf } from '../../helpers/subagentHandle';

const fixture = useAgent({ features: [createOsToolsFeature()] });

function request(agent: Agent, signal = new AbortController().signal, events: SubagentRunEvent[] = []): SubagentRunRequest {
  return { child: handleOf(agent, fixture.dir), prompt: 'look around', profile: { name: 'explore', description: 'reads', readOnly: true, maxTurns: 10 }, signal, onEvent: (e) => events.push(e) };
}

describe('ScriptedSubagentRunner', () => {
  test('plays its batches through the real executor, then answers with a text built from the results', async () => {
    fs.writeFileSync(nodePath.join(fixture.dir, 'a.txt'), 'alpha\n');
    const { agent } = fixture.open({ interactions: approveAll() });
    const runner = new ScriptedSubagentRunner({
      batches: [[{ name: 'Read', args: { path: 'a.txt' } }, { name: 'Nope' }], [{ name: 'Write', args: { path: 'b.txt', content: 'beta\n' } }]],
      text: (results) => `read ${results[0]![0]!.isError ? 'failed' : 'ok'}, ${results[0]![1]!.outcome}`,
      usage: { totalTokens: 42 },
    });
    const events: SubagentRunEvent[] = [];
    const result = await runner.run(request(agent, undefined, events));
    expect(result).toMatchObject({ status: 'completed', text: 'read ok, rejected', turns: 3, usage: { totalTokens: 42 } });
    expect(fs.readFileSync(nodePath.join(fixture.dir, 'b.txt'), 'utf8')).toBe('beta\n');
    expect(runner.runs[0]!.results.map((batch) => batch.map((r) => r.toolCallId))).toEqual([['s1_1', 's1_2'], ['s2_1']]);
    expect(events.map((e) => e.type)).toEqual(['turn', 'turn', 'turn', 'usage', 'text']);
  });

  test('an abort during model time ends the run as aborted without playing later batches', async () => {
    const { agent } = fixture.open({ interactions: approveAll() });
    const runner = new ScriptedSubagentRunner({ batches: [[{ name: 'Write', args: { path: 'never.txt', content: 'x' } }]], turnDelayMs: 10_000 });
    const controller = new AbortController();
    const running = runner.run(request(agent, controller.signal));
    setTimeout(() => controller.abort(), 20);
    await expect(running).resolves.toMatchObject({ status: 'aborted', turns: 1 });
    expect(fs.existsSync(nodePath.join(fixture.dir, 'never.txt'))).toBe(false);
  });

  test('a scripted failure carries its error and retry-after', async () => {
    const { agent } = fixture.open();
    const events: SubagentRunEvent[] = [];
    const result = await new ScriptedSubagentRunner({ fail: { error: 'HTTP 429', retryAfterMs: 1500 } }).run(request(agent, undefined, events));
    expect(result).toEqual({ status: 'failed', text: '', turns: 1, error: 'HTTP 429', retryAfterMs: 1500 });
    expect(events).toContainEqual({ type: 'rate_limited', retryAfterMs: 1500 });
  });
});
