import { ToolAccesses } from '../../../src/tool/accesses';
import type { ListenerErrorEvent } from '../../../src/services/executor/toolExecutor';
import { expectPairedEvents, useAgent } from '../../helpers/agentHarness';
import { throwingGettersError, throwingProxy } from '../../helpers/hostile';
import { testTool } from '../../helpers/testTools';
import { captureUncaughtExceptions } from '../../helpers/uncaught';

/** Whatever a tool or hook throws or returns, every call gets one result and one started/finished pair. */
const fx = useAgent();

/** execute() must resolve; a rejection (with a value even jest cannot print) fails the test plainly. */
async function mustResolve<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch {
    throw new Error('execute() rejected');
  }
}

const echo = testTool('Echo', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => ({ output: 'echoed' }) });
/** A runnable execution with `extra`'s properties defined on it as they are (getters stay getters). */
const runnable = (extra: object) =>
  Object.defineProperties({ accesses: ToolAccesses.none(), approvalRule: 'Odd', execute: async () => ({ output: 'ran' }) }, Object.getOwnPropertyDescriptors(extra));
const throwingGetter = (key: string) => ({
  get [key]() {
    throw new Error(`${key} broke`);
  },
});

describe('thrown values that cannot be read', () => {
  test.each([
    ['an Error whose message and name getters throw', throwingGettersError],
    ['a Proxy whose traps throw', throwingProxy],
  ])('a tool that throws %s fails with an unprintable error', async (_name, make) => {
    const h = fx.open({
      tools: [
        testTool('Bad', {
          accesses: () => ToolAccesses.none(),
          approval: 'auto',
          execute: () => {
            throw make();
          },
        }),
        echo,
      ],
    });
    const results = await mustResolve(h.agent.executor.execute([
      { id: 'a', name: 'Bad', arguments: {} },
      { id: 'b', name: 'Echo', arguments: {} },
    ]));
    expect(results.map((r) => [r.toolCallId, r.outcome, r.isError, r.output])).toEqual([
      ['a', 'executed', true, 'Tool "Bad" failed: <unprintable error>'],
      ['b', 'executed', false, 'echoed'],
    ]);
    expectPairedEvents(h.events, ['a', 'b']);
  });

  test('hooks that throw such values fail their call, naming the hook', async () => {
    const h = fx.open({ tools: [echo] });
    h.agent.executor.onBeforeExecuteTool(
      (ctx) => {
        if (ctx.toolCallId === 'a') throw throwingProxy();
      },
      { name: 'guard' },
    );
    h.agent.executor.onWillExecuteTool(
      (ctx) => {
        if (ctx.toolCallId === 'b') throw throwingGettersError();
      },
      { name: 'warmup' },
    );
    h.agent.executor.onDidExecuteTool(
      (ctx) => {
        if (ctx.toolCallId === 'c') return Promise.reject(throwingProxy());
      },
      { name: 'redactor' },
    );
    const reported: ListenerErrorEvent[] = [];
    h.agent.executor.onListenerError((e) => reported.push(e));
    const results = await mustResolve(h.agent.executor.execute(['a', 'b', 'c'].map((id) => ({ id, name: 'Echo', arguments: {} }))));
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['vetoed', 'onBeforeExecuteTool hook "guard" failed for tool "Echo": <unprintable error>'],
      ['vetoed', 'onWillExecuteTool hook "warmup" failed for tool "Echo": <unprintable error>'],
      // The tool ran: its result stands, and the did-hook's failure is reported beside it.
      ['executed', 'echoed'],
    ]);
    expect(reported.map((e) => [e.event, e.listener, e.toolCallId, e.message])).toEqual([['onDidExecuteTool', 'redactor', 'c', '<unprintable error>']]);
    expectPairedEvents(h.events, ['a', 'b', 'c']);
  });
});

describe('executions whose fields cannot be read', () => {
  test.each<[string, () => object, string]>([
    ['an accesses getter that throws', () => runnable(throwingGetter('accesses')), 'accesses broke'],
    ['an isError getter that throws', () => runnable(throwingGetter('isError')), 'isError broke'],
    ['a description getter that throws', () => runnable(throwingGetter('description')), 'description broke'],
    ['a Proxy whose traps throw', throwingProxy, '<unprintable error>'],
    ['accesses that are not an array', () => runnable({ accesses: 'everything' }), 'its accesses are not an array (use ToolAccesses.none() for a call that touches nothing)'],
    [
      'an access of an unknown kind',
      () => runnable({ accesses: [{ kind: 'file', op: 'read', path: '/a' }, { kind: 'disk' }] }),
      'access 1 is not a valid access: expected {kind: "file", op: "read" | "write" | "search", path}, {kind: "state", key, op: "read" | "write"}, {kind: "process"}, {kind: "network"} or {kind: "all"}',
    ],
    ['no approval rule', () => runnable({ approvalRule: undefined }), 'it returned no approvalRule (the rule text, e.g. "Tool(args)")'],
  ])('%s: the call ends resolution-failed', async (_name, make, message) => {
    const h = fx.open({ tools: [testTool('Odd', { resolve: () => make() as never }), echo] });
    const results = await mustResolve(h.agent.executor.execute([
      { id: 'a', name: 'Odd', arguments: {} },
      { id: 'b', name: 'Echo', arguments: {} },
    ]));
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['resolution-failed', `Tool "Odd" failed to resolve execution: ${message}`],
      ['executed', 'echoed'],
    ]);
    expectPairedEvents(h.events, ['a', 'b']);
  });

  test('each field of an execution is read once per resolution; the started event shows the first', async () => {
    let reads = 0;
    const h = fx.open({
      tools: [
        testTool('Once', {
          approval: 'auto',
          resolve: () =>
            runnable({
              get description() {
                reads++;
                return `read ${reads}`;
              },
            }) as never,
        }),
      ],
    });
    const [result] = await mustResolve(h.agent.executor.execute([{ id: 'a', name: 'Once', arguments: {} }]));
    expect(result).toMatchObject({ outcome: 'executed', output: 'ran' });
    // Once in preflight and once when it was resolved again right before it ran.
    expect(reads).toBe(2);
    expect(h.startedEvents.map((e) => e.description)).toEqual(['read 1']);
  });
});

describe('results that cannot be read', () => {
  test('a result whose output getter throws, a Proxy result, and a did-hook that sets one', async () => {
    const h = fx.open({
      tools: [
        testTool('Getter', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => throwingGetter('output') as never }),
        testTool('Trap', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => throwingProxy() as never }),
        echo,
      ],
    });
    h.agent.executor.onDidExecuteTool((ctx) => {
      if (ctx.toolCallId === 'c') ctx.result = throwingProxy() as never;
    });
    const results = await mustResolve(h.agent.executor.execute([
      { id: 'a', name: 'Getter', arguments: {} },
      { id: 'b', name: 'Trap', arguments: {} },
      { id: 'c', name: 'Echo', arguments: {} },
    ]));
    expect(results.map((r) => [r.outcome, r.isError, r.output])).toEqual([
      ['executed', true, 'Tool "Getter" returned a result that could not be read.'],
      ['executed', true, 'Tool "Trap" failed: <unprintable error>'],
      ['executed', true, 'Tool "Echo" returned a result that could not be read.'],
    ]);
    expectPairedEvents(h.events, ['a', 'b', 'c']);
  });

  test('arguments passed as an object whose traps throw are refused, saying to pass JSON text', async () => {
    const h = fx.open({ tools: [echo] });
    const [result] = await mustResolve(h.agent.executor.execute([{ id: 'a', name: 'Echo', arguments: throwingProxy() as Record<string, unknown> }]));
    expect(result).toMatchObject({
      outcome: 'rejected',
      output: 'Invalid args for tool "Echo": the arguments could not be read (<unprintable error>); pass them as JSON text',
    });
    expectPairedEvents(h.events, ['a']);
  });
});

describe('event listeners that throw', () => {
  test('are contained and reported on onListenerError, with the event and the listener name', async () => {
    const uncaught = captureUncaughtExceptions();
    try {
      const h = fx.open({
        tools: [
          testTool('Chatty', {
            accesses: () => ToolAccesses.none(),
            approval: 'auto',
            execute: (_input, ctx) => {
              ctx.onUpdate({ kind: 'status', text: 'working' });
              return { output: 'done' };
            },
          }),
        ],
      });
      const reported: Omit<ListenerErrorEvent, 'error'>[] = [];
      h.agent.executor.onListenerError(({ event, listener, message }) => void reported.push({ event, listener, message }));
      // A listener of onListenerError that throws is ignored as well.
      h.agent.executor.onListenerError(() => {
        throw new Error('the error reporter broke too');
      });
      h.agent.executor.onToolCallStarted(function startedListener() {
        throw new Error('started listener broke');
      });
      h.agent.executor.onToolProgress(function progressListener() {
        throw throwingGettersError();
      });
      h.agent.executor.onToolCallFinished(() => {
        throw throwingProxy();
      });
      const [result] = await mustResolve(h.agent.executor.execute([{ id: 'a', name: 'Chatty', arguments: {} }]));
      await new Promise((resolve) => setImmediate(resolve));
      expect(result).toMatchObject({ outcome: 'executed', output: 'done' });
      expect(reported).toEqual([
        { event: 'onToolCallStarted', listener: 'startedListener', message: 'started listener broke' },
        { event: 'onToolProgress', listener: 'progressListener', message: '<unprintable error>' },
        { event: 'onToolCallFinished', listener: 'anonymous', message: '<unprintable error>' },
      ]);
      // The harness's own listeners still heard every event.
      expectPairedEvents(h.events, ['a']);
      expect(uncaught.errors).toEqual([]);
    } finally {
      uncaught.dispose();
    }
  });
});
