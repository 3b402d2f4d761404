import { createApp } from '../../../src/scopes/appScope';
import { createAgentFeature } from '../../../src/tools/agent/agentFeature';
import { type ISubagentRunner, ISubagentRunner as RunnerId, ISubagentRunnerService } from '../../../src/tools/agent/contract';

const runner: ISubagentRunner = { run: async () => ({ status: 'completed', text: 'done' }) };

describe('the subagent runner port (App scope)', () => {
  test('starts empty, binds and unbinds a runner, and announces each change', async () => {
    const app = createApp({ features: [createAgentFeature()] });
    const slot = app.get(ISubagentRunnerService);
    const seen: (ISubagentRunner | undefined)[] = [];
    slot.onDidChange((r) => seen.push(r));
    expect(slot.current).toBeUndefined();
    const binding = slot.bind(runner);
    expect(slot.current).toBe(runner);
    binding.dispose();
    binding.dispose();
    expect(slot.current).toBeUndefined();
    expect(seen).toEqual([runner, undefined]);
    await app.dispose();
  });

  test('a stale binding does not unbind the runner that replaced it', async () => {
    const app = createApp({ features: [createAgentFeature()] });
    const slot = app.get(ISubagentRunnerService);
    const first = slot.bind(runner);
    const second: ISubagentRunner = { run: runner.run };
    slot.bind(second);
    first.dispose();
    expect(slot.current).toBe(second);
    await app.dispose();
  });

  test('an ISubagentRunner bound in the App container at creation is the starting runner', async () => {
    const app = createApp({ features: [createAgentFeature()], overrides: (c) => c.bind(RunnerId).toConstantValue(runner) });
    expect(app.get(ISubagentRunnerService).current).toBe(runner);
    await app.dispose();
  });

  test('something that is not a runner is refused with what a runner is', async () => {
    const app = createApp({ features: [createAgentFeature()] });
    expect(() => app.get(ISubagentRunnerService).bind({} as ISubagentRunner)).toThrow('A subagent runner is an object with a run({child, prompt, profile, signal, onEvent}) method');
    await app.dispose();
  });
});
