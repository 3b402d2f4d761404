import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { IAgentFactory, type ScopedAgent } from '../../../src/services/agentFactory/agentFactory';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { useAgent } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * Collects until `done()` or 100 rounds: FinalizationRegistry callbacks run in a later task, and
 * a loaded machine may run them rounds later. A child that stays reachable fails the test.
 */
async function collectGarbageUntil(done: () => boolean): Promise<void> {
  for (let round = 0; round < 100 && !done(); round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a disposed child is collected even while the runner keeps its request (handle, signal, onEvent)', async () => {
  const children = { created: 0, collected: 0 };
  const registry = new FinalizationRegistry<void>(() => children.collected++);
  let factory: IAgentFactory | undefined;
  const h = fx.open({
    id: 'main',
    builtins: true,
    interactions: approveAll(),
    // Counts the child containers the Agent tool creates, without holding them.
    appOverrides: (container) => {
      const app = container.get(IAgentFactory);
      factory = {
        createAgent: (options): ScopedAgent => {
          const child = app.createAgent(options);
          children.created++;
          registry.register(child.container);
          return child;
        },
      };
      container.rebind(IAgentFactory).toConstantValue(factory);
    },
  });
  expect(factory).toBeDefined();
  // The scripted runner keeps every request it played (its `runs`), as a host logging runs would.
  const runner = new ScriptedSubagentRunner({ batches: [[{ name: 'Glob', args: { pattern: '*' } }]], text: 'done' });
  h.app.get(ISubagentRunnerService).bind(runner);
  const count = 40;
  for (let i = 0; i < count; i++) {
    const result = await h.call('Agent', { description: `Child ${i}`, prompt: 'look', subagent_type: 'explore' });
    expect(result.isError).toBe(false);
  }
  expect(runner.runs).toHaveLength(count);
  expect(runner.runs[0]!.request.child.isDisposed).toBe(true);
  expect(children.created).toBe(count);
  // Every child but (possibly) the last one, which V8 may still hold in a register or cache.
  await collectGarbageUntil(() => children.collected >= count - 1);
  expect(children.collected).toBeGreaterThanOrEqual(count - 1);
});

test('a handle kept after its child ended refuses work with a message instead of running it', async () => {
  const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
  const runner = new ScriptedSubagentRunner({ text: 'done' });
  h.app.get(ISubagentRunnerService).bind(runner);
  await h.call('Agent', { description: 'Ends at once', prompt: 'answer', subagent_type: 'explore' });
  const handle = runner.runs[0]!.request.child;
  expect(handle.isDisposed).toBe(true);
  expect(handle.modelTools()).toEqual([]);
  await expect(handle.execute([{ id: 'x', name: 'Glob', arguments: '{"pattern":"*"}' }])).rejects.toThrow(`Subagent ${handle.agentId} has ended; its tools no longer run.`);
  // Subscribing to a dead child's events is a no-op that still returns a disposable.
  const subscription = handle.events.onToolCallFinished(() => undefined);
  subscription.dispose();
  await handle.dispose();
});

test('subagent runs under one long-lived host signal leave no listener on it (each run stops following it at its end)', async () => {
  const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
  h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ batches: [[{ name: 'Glob', args: { pattern: '*' } }]], text: 'done' }));
  // A session's signal, as a host passes to every batch: count the abort listeners on it.
  const session = new AbortController();
  const add = session.signal.addEventListener.bind(session.signal);
  const remove = session.signal.removeEventListener.bind(session.signal);
  const listeners = new Set<unknown>();
  session.signal.addEventListener = (type: string, listener: Parameters<AbortSignal['addEventListener']>[1], options?: Parameters<AbortSignal['addEventListener']>[2]) => {
    if (type === 'abort') listeners.add(listener);
    add(type, listener, options);
  };
  session.signal.removeEventListener = (type: string, listener: Parameters<AbortSignal['removeEventListener']>[1], options?: Parameters<AbortSignal['removeEventListener']>[2]) => {
    if (type === 'abort') listeners.delete(listener);
    remove(type, listener, options);
  };
  for (let i = 0; i < 10; i++) {
    const result = await h.call('Agent', { description: `Child ${i}`, prompt: 'look', subagent_type: 'explore' }, { signal: session.signal });
    expect(result.isError).toBe(false);
  }
  expect(listeners.size).toBe(0);
});
