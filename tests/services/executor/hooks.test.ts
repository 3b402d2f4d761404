import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { ListenerErrorEvent } from '../../../src/services/executor/toolExecutor';
import { ToolAccesses } from '../../../src/tool/accesses';
import { approveAll, FakeHost } from '../../helpers/fakeHost';
import { useTempDir } from '../../helpers/tempDir';
import { deferred } from '../../helpers/async';
import { testTool } from '../../helpers/testTools';
import { expectPairedEvents, type Harness, openHarness } from '../../helpers/agentHarness';

const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

function echoTool(name = 'Echo') {
  return testTool(name, {
    accesses: () => ToolAccesses.none(),
    approval: 'auto',
    execute: (input, ctx) => ({ output: `${name} ${input.id ?? ''} ${JSON.stringify(ctx.metadata)}`.trim() }),
  });
}

describe('onBeforeExecuteTool', () => {
  test('a listener can veto one call and let the others run', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    h.agent.executor.onBeforeExecuteTool((ctx) => {
      if ((ctx.args as { id?: string }).id === 'no') ctx.veto({ output: 'Not today.', isError: true });
    });
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Echo', arguments: { id: 'yes' } },
      { id: 'b', name: 'Echo', arguments: { id: 'no' } },
    ]);
    expect(results.map((r) => [r.output, r.outcome])).toEqual([
      ['Echo yes {}', 'executed'],
      ['Not today.', 'vetoed'],
    ]);
    expectPairedEvents(h.events, ['a', 'b']);
  });

  test('listeners run in order; pass() metadata reaches execute; allow() ends the round', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    const seen: string[] = [];
    h.agent.executor.onBeforeExecuteTool((ctx) => {
      seen.push('first');
      ctx.pass({ plan: 'A' });
    });
    h.agent.executor.onBeforeExecuteTool((ctx) => {
      seen.push('second');
      ctx.pass({ extra: 1 });
      ctx.allow();
    });
    h.agent.executor.onBeforeExecuteTool((ctx) => {
      seen.push('third');
      ctx.veto({ output: 'never reached' });
    });
    const [result] = await h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: { id: 'x' } }]);
    expect(result!.output).toBe('Echo x {"plan":"A","extra":1}');
    expect(seen).toEqual(['first', 'second']);
  });

  test('a listener can wait on async work, with waitUntil or by returning a promise', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    const gate = deferred();
    const order: string[] = [];
    h.agent.executor.onBeforeExecuteTool((ctx) => {
      ctx.waitUntil(gate.promise.then(() => order.push('gate opened')));
    });
    h.agent.executor.onBeforeExecuteTool(async (ctx) => {
      await new Promise((r) => setImmediate(r));
      ctx.pass({ late: true });
    });
    h.agent.executor.onToolCallStarted(() => order.push('started'));
    const pending = h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: {} }]);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    gate.resolve();
    const [result] = await pending;
    expect(order).toEqual(['gate opened', 'started']);
    expect(result!.output).toBe('Echo  {"late":true}');
  });

  test('a listener that throws fails only its own call, naming the hook', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    h.agent.executor.onBeforeExecuteTool(
      (ctx) => {
        if ((ctx.args as { id?: string }).id === 'bad') throw new Error('rule engine crashed');
      },
      { name: 'planGuard' },
    );
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Echo', arguments: { id: 'bad' } },
      { id: 'b', name: 'Echo', arguments: { id: 'good' } },
    ]);
    expect(results.map((r) => [r.output, r.isError, r.outcome])).toEqual([
      ['onBeforeExecuteTool hook "planGuard" failed for tool "Echo": rule engine crashed', true, 'vetoed'],
      ['Echo good {}', false, 'executed'],
    ]);
    expect(h.finishedEvents.map((e) => [e.toolCallId, e.outcome])).toEqual(expect.arrayContaining([['a', 'vetoed'], ['b', 'executed']]));
    expectPairedEvents(h.events, ['a', 'b']);
  });

  test('a rejected waitUntil fails the call too', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    function quotaCheck(ctx: { waitUntil(p: Promise<unknown>): void }) {
      ctx.waitUntil(Promise.reject(new Error('quota service down')));
    }
    h.agent.executor.onBeforeExecuteTool(quotaCheck);
    const [result] = await h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: {} }]);
    expect(result!.output).toBe('onBeforeExecuteTool hook "quotaCheck" failed for tool "Echo": quota service down');
  });

  test('a listener with a lower order runs before approval and can approve', async () => {
    h = openHarness({ cwd: dir.path, tools: [testTool('Deploy', { accesses: () => ToolAccesses.all() })] });
    const first = await h.agent.executor.execute([{ id: 'a', name: 'Deploy', arguments: {} }]);
    expect(first[0]!.outcome).toBe('denied');
    h.agent.executor.onBeforeExecuteTool((ctx) => ctx.allow(), { name: 'trusted', order: -1 });
    const second = await h.agent.executor.execute([{ id: 'b', name: 'Deploy', arguments: {} }]);
    expect(second[0]).toMatchObject({ output: 'Deploy done', outcome: 'executed' });
  });

  test('approve() before approval approves the call, and the later listeners still run and may veto it', async () => {
    h = openHarness({ cwd: dir.path, tools: [testTool('Deploy', { accesses: () => ToolAccesses.all() })] });
    const seen: string[] = [];
    h.agent.executor.onBeforeExecuteTool((ctx) => ctx.approve(), { name: 'asked the person itself', order: -100 });
    h.agent.executor.onBeforeExecuteTool(
      (ctx) => {
        seen.push(String((ctx.args as { id?: string }).id));
        if ((ctx.args as { id?: string }).id === 'blocked') ctx.veto({ output: 'blocked by policy' });
      },
      { name: 'a PreToolUse hook', order: -10 },
    );
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Deploy', arguments: { id: 'ok' } },
      { id: 'b', name: 'Deploy', arguments: { id: 'blocked' } },
    ]);
    // No host is bound: without approve() the first call would be denied by approval.
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'Deploy done'],
      ['vetoed', 'blocked by policy'],
    ]);
    expect(seen.sort()).toEqual(['blocked', 'ok']);
  });

  test('a disposed listener no longer runs', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    const sub = h.agent.executor.onBeforeExecuteTool((ctx) => ctx.veto({ output: 'vetoed' }));
    sub.dispose();
    const [result] = await h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: {} }]);
    expect(result!.outcome).toBe('executed');
  });
});

describe('onWillExecuteTool', () => {
  test('runs after approval and before the started event; a failure fails that call, naming the hook', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    const order: string[] = [];
    const id = (ctx: { args: unknown }) => (ctx.args as { id?: string }).id;
    h.agent.executor.onBeforeExecuteTool((ctx) => void order.push(`${id(ctx)}:before`));
    h.agent.executor.onWillExecuteTool(
      (ctx) => {
        order.push(`${id(ctx)}:will`);
        if (id(ctx) === 'bad') throw new Error('not ready');
      },
      { name: 'mcpWarmup' },
    );
    h.agent.executor.onToolCallStarted((e) => void order.push(`${(e.args as { id?: string }).id}:started`));
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Echo', arguments: { id: 'ok' } },
      { id: 'b', name: 'Echo', arguments: { id: 'bad' } },
    ]);
    expect(results[0]).toMatchObject({ outcome: 'executed' });
    expect(results[1]).toMatchObject({ output: 'onWillExecuteTool hook "mcpWarmup" failed for tool "Echo": not ready', outcome: 'vetoed', isError: true });
    expect(h.finishedEvents.find((e) => e.toolCallId === 'b')).toMatchObject({ outcome: 'vetoed', isError: true });
    for (const call of ['ok', 'bad']) {
      expect(order.filter((e) => e.startsWith(`${call}:`))).toEqual([`${call}:before`, `${call}:will`, `${call}:started`]);
    }
  });
});

describe('onDidExecuteTool', () => {
  test('can replace the result', async () => {
    h = openHarness({ cwd: dir.path, tools: [echoTool()] });
    h.agent.executor.onDidExecuteTool((ctx) => {
      ctx.result = { output: `${String(ctx.result.output)} (reviewed)` };
    });
    const [result] = await h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: { id: 'x' } }]);
    expect(result!.output).toBe('Echo x {} (reviewed)');
  });

  test('can stop the turn: the result says so and calls that have not started are skipped', async () => {
    const gate = deferred();
    h = openHarness({
      cwd: dir.path,
      tools: [
        echoTool(),
        testTool('Slow', { accesses: () => ToolAccesses.all(), execute: async () => ({ output: 'slow done' }) }),
        testTool('Waiter', { accesses: () => [ToolAccesses.readFile(`${dir.path}/x`)], execute: async () => (await gate.promise, { output: 'waited' }) }),
      ],
      interactions: new FakeHost({ approval: () => ({ decision: 'approve' }) }),
    });
    h.agent.executor.onDidExecuteTool((ctx) => {
      if (ctx.name === 'Echo') {
        ctx.stopTurn();
        gate.resolve();
      }
    });
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Echo', arguments: {} },
      { id: 'b', name: 'Waiter', arguments: {} },
      { id: 'c', name: 'Slow', arguments: {} },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.stopTurn === true])).toEqual([
      ['a', 'executed', true],
      ['b', 'executed', false],
      ['c', 'skipped', false],
    ]);
    expect(results[2]!.output).toBe('Tool skipped because a previous tool call stopped the turn.');
  });

  test('a hook that throws after a Write succeeded keeps the result and is reported on onListenerError', async () => {
    h = openHarness({ cwd: dir.path, builtins: true, interactions: approveAll() });
    const reported: ListenerErrorEvent[] = [];
    h.agent.executor.onListenerError((e) => reported.push(e));
    h.agent.executor.onDidExecuteTool(
      (ctx) => {
        ctx.result = { output: 'half-redacted', isError: true };
        throw new Error('formatter broke');
      },
      { name: 'redactor' },
    );
    const later: string[] = [];
    h.agent.executor.onDidExecuteTool((ctx) => void later.push(`${ctx.toolCallId}:${String(ctx.result.output)}`));
    const results = await h.agent.executor.execute([{ id: 'w', name: 'Write', arguments: { path: 'a.txt', content: 'hello' } }]);
    // The file was written: the model must see the Write's success, not an error to retry it on.
    expect(fs.readFileSync(nodePath.join(dir.path, 'a.txt'), 'utf8')).toBe('hello');
    expect(results.map((r) => [r.output, r.isError, r.outcome])).toEqual([['Wrote 5 bytes to a.txt (new file).', false, 'executed']]);
    expect(h.finishedEvents.map((e) => [e.toolCallId, e.isError, e.outcome])).toEqual([['w', false, 'executed']]);
    // The failing hook's change is dropped; later hooks still see the call.
    expect(later).toEqual(['w:Wrote 5 bytes to a.txt (new file).']);
    expect(reported).toEqual([expect.objectContaining({ event: 'onDidExecuteTool', listener: 'redactor', toolCallId: 'w', message: 'formatter broke' })]);
    expectPairedEvents(h.events, ['w']);
  });
});

describe('stopBatchAfterThis', () => {
  test('every later call is skipped with the exact message and never runs', async () => {
    let ran = 0;
    h = openHarness({
      cwd: dir.path,
      tools: [
        testTool('Stopper', { accesses: () => [], approval: 'auto', stopBatchAfterThis: () => true, execute: () => ({ output: 'stopping' }) }),
        testTool('Counted', { accesses: () => [], approval: 'auto', execute: () => (ran++, { output: 'ran' }) }),
      ],
    });
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Counted', arguments: {} },
      { id: 'b', name: 'Stopper', arguments: {} },
      { id: 'c', name: 'Counted', arguments: {} },
      { id: 'd', name: 'Nope', arguments: {} },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.output])).toEqual([
      ['a', 'executed', 'ran'],
      ['b', 'executed', 'stopping'],
      ['c', 'skipped', 'Tool skipped because a previous tool call stopped the turn.'],
      ['d', 'skipped', 'Tool skipped because a previous tool call stopped the turn.'],
    ]);
    expect(ran).toBe(1);
    expectPairedEvents(h.events, ['a', 'b', 'c', 'd']);
  });
  test('skippedMessage replaces the generic text of the skipped calls', async () => {
    h = openHarness({
      cwd: dir.path,
      tools: [
        testTool('Stopper', { resolve: () => ({ accesses: [], approval: 'auto', approvalRule: 'Stopper', stopBatchAfterThis: true, skippedMessage: 'Skipped: call it again.', execute: async () => ({ output: 'stopping' }) }) }),
        testTool('Counted', { accesses: () => [], approval: 'auto' }),
      ],
    });
    const results = await h.agent.executor.execute([
      { id: 'b', name: 'Stopper', arguments: {} },
      { id: 'c', name: 'Counted', arguments: {} },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.output])).toEqual([
      ['b', 'executed', 'stopping'],
      ['c', 'skipped', 'Skipped: call it again.'],
    ]);
  });
});
