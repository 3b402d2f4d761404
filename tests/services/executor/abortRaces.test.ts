import { ToolAccesses } from '../../../src/tool/accesses';
import type { ToolCallResult } from '../../../src/services/executor/toolExecutor';
import { expectPairedEvents, type Harness, useAgent } from '../../helpers/agentHarness';
import { deferred } from '../../helpers/async';
import { FakeHost } from '../../helpers/fakeHost';
import { testTool } from '../../helpers/testTools';

/**
 * Every await of the pipeline races the batch's abort: whatever never settles (a tool's
 * resolveExecution, the host's answer, a hook), an aborted batch returns once the grace period
 * has passed, with the call ended `aborted`.
 */
const fx = useAgent({ config: { executor: { abortGraceMs: 20 } } });
const never = () => new Promise<never>(() => undefined);
const ABORTED = (name: string) => ({ outcome: 'aborted', isError: true, output: `Tool "${name}" was aborted` });

/** A tool that touches nothing (so it needs no approval) and answers at once. */
const echo = testTool('Echo', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => ({ output: 'echoed' }) });

/** Starts the batch, aborts it once `reached` resolves, and returns its results. */
async function abortWhen(h: Harness, reached: Promise<void>, calls: { id: string; name: string }[]): Promise<ToolCallResult[]> {
  const controller = new AbortController();
  const pending = h.agent.executor.execute(
    calls.map((c) => ({ ...c, arguments: {} })),
    { signal: controller.signal },
  );
  await reached;
  controller.abort();
  return pending;
}

test('a resolveExecution that never settles', async () => {
  const reached = deferred();
  const hangs = testTool('Hangs', { resolve: () => (reached.resolve(), never()) });
  const h = fx.open({ tools: [hangs, echo] });
  const results = await abortWhen(h, reached.promise, [
    { id: 'a', name: 'Hangs' },
    { id: 'b', name: 'Echo' },
  ]);
  expect(results).toMatchObject([ABORTED('Hangs'), ABORTED('Echo')]);
  expectPairedEvents(h.events, ['a', 'b']);
});

test('an approval request the host never answers (and whose abort it ignores); later requests are still asked', async () => {
  const reached = deferred();
  let requests = 0;
  const host = new FakeHost({ approval: () => (++requests === 1 ? (reached.resolve(), never()) : { decision: 'approve' }) });
  const h = fx.open({ tools: [testTool('Deploy', { accesses: () => ToolAccesses.all() })], interactions: host });
  const [result] = await abortWhen(h, reached.promise, [{ id: 'a', name: 'Deploy' }]);
  expect(result).toMatchObject(ABORTED('Deploy'));
  const [next] = await h.agent.executor.execute([{ id: 'b', name: 'Deploy', arguments: {} }]);
  expect(next).toMatchObject({ outcome: 'executed', output: 'Deploy done' });
  expect(host.approvals.map((r) => r.toolCallId)).toEqual(['a', 'b']);
  expectPairedEvents(h.events, ['a', 'b']);
});

test('a before-execute hook whose waitUntil never settles', async () => {
  const reached = deferred();
  const h = fx.open({ tools: [echo] });
  h.agent.executor.onBeforeExecuteTool((ctx) => {
    ctx.waitUntil(never());
    reached.resolve();
  });
  const [result] = await abortWhen(h, reached.promise, [{ id: 'a', name: 'Echo' }]);
  expect(result).toMatchObject(ABORTED('Echo'));
  expectPairedEvents(h.events, ['a']);
});

test('a will-execute hook that never settles', async () => {
  const reached = deferred();
  const h = fx.open({ tools: [echo] });
  h.agent.executor.onWillExecuteTool(() => (reached.resolve(), never()));
  const [result] = await abortWhen(h, reached.promise, [{ id: 'a', name: 'Echo' }]);
  expect(result).toMatchObject(ABORTED('Echo'));
  expectPairedEvents(h.events, ['a']);
});

test('a did-execute hook that never settles', async () => {
  const reached = deferred();
  const h = fx.open({ tools: [echo] });
  h.agent.executor.onDidExecuteTool(() => (reached.resolve(), never()));
  const [result] = await abortWhen(h, reached.promise, [{ id: 'a', name: 'Echo' }]);
  expect(result).toMatchObject(ABORTED('Echo'));
  expectPairedEvents(h.events, ['a']);
});

test("a tool's execute that never settles and ignores the abort", async () => {
  const reached = deferred();
  const h = fx.open({ tools: [testTool('Stuck', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => (reached.resolve(), never()) })] });
  const [result] = await abortWhen(h, reached.promise, [{ id: 'a', name: 'Stuck' }]);
  expect(result).toMatchObject(ABORTED('Stuck'));
  expectPairedEvents(h.events, ['a']);
});
