import * as nodePath from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { ToolAccesses, type ToolAccesses as Accesses } from '../../../src/tool/accesses';
import { ToolScheduler } from '../../../src/services/executor/toolScheduler';
import { approveAll, FakeHost } from '../../helpers/fakeHost';
import { useTempDir } from '../../helpers/tempDir';
import { deferred, waitFor } from '../../helpers/async';
import { testTool } from '../../helpers/testTools';
import { expectPairedEvents, type Harness, openHarness } from '../../helpers/agentHarness';

const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

type Op = { id?: string; path?: string };

/** A tool that logs `start:<id>` and `end:<id>`, and holds until `release(id)` (or runs through). */
function loggingTools(log: string[], holds: Map<string, Promise<void>> = new Map()) {
  const run = (kind: string) => async (input: Op) => {
    log.push(`start:${input.id}`);
    await holds.get(input.id!);
    log.push(`end:${input.id}`);
    if (input.id?.startsWith('fail')) throw new Error(`${input.id} broke`);
    return { output: `${kind} ${input.id}` };
  };
  const at = (input: Op) => nodePath.join(dir.path, input.path ?? 'f');
  return [
    testTool<Op>('R', { accesses: (i) => [ToolAccesses.readFile(at(i))], execute: run('R') }),
    testTool<Op>('W', { accesses: (i) => [ToolAccesses.writeFile(at(i))], execute: run('W') }),
    testTool<Op>('S', { accesses: (i) => [ToolAccesses.searchTree(at(i))], execute: run('S') }),
    testTool<Op>('X', { accesses: () => ToolAccesses.all(), execute: run('X') }),
  ];
}

describe('scheduling by accesses', () => {
  test('independent calls run concurrently: each waits for all the others to start', async () => {
    const log: string[] = [];
    const allStarted = deferred();
    const holds = new Map<string, Promise<void>>();
    for (const id of ['a', 'b', 'c', 'd']) holds.set(id, allStarted.promise);
    h = openHarness({ cwd: dir.path, tools: loggingTools(log, holds), interactions: approveAll() });
    // If the calls ran one by one, the first would wait forever for the others.
    h.agent.executor.onToolCallStarted(() => undefined);
    const watch = setInterval(() => {
      if (log.filter((e) => e.startsWith('start:')).length === 4) allStarted.resolve();
    }, 1);
    const results = await h.agent.executor.execute([
      { id: '1', name: 'R', arguments: { id: 'a', path: 'x' } },
      { id: '2', name: 'R', arguments: { id: 'b', path: 'x' } },
      { id: '3', name: 'W', arguments: { id: 'c', path: 'y' } },
      { id: '4', name: 'S', arguments: { id: 'd', path: 'sub' } },
    ]);
    clearInterval(watch);
    expect(log.slice(0, 4).sort()).toEqual(['start:a', 'start:b', 'start:c', 'start:d']);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'executed', 'executed', 'executed']);
  });

  test.each<[string, [string, Op], [string, Op]]>([
    ['a write after a read of the same file', ['R', { id: 'a', path: 'x' }], ['W', { id: 'b', path: 'x' }]],
    ['a read after a write of the same file', ['W', { id: 'a', path: 'x' }], ['R', { id: 'b', path: 'x' }]],
    ['two writes of one file', ['W', { id: 'a', path: 'x' }], ['W', { id: 'b', path: 'x' }]],
    ['a write inside a recursive search', ['S', { id: 'a', path: 'src' }], ['W', { id: 'b', path: 'src/deep/f.ts' }]],
    ['anything after an all', ['X', { id: 'a' }], ['R', { id: 'b', path: 'x' }]],
    ['an all after a read', ['R', { id: 'a', path: 'x' }], ['X', { id: 'b' }]],
  ])('%s: the later call starts only after the earlier one finished', async (_name, [t1, i1], [t2, i2]) => {
    const log: string[] = [];
    const firstHeld = deferred();
    h = openHarness({ cwd: dir.path, tools: loggingTools(log, new Map([['a', firstHeld.promise]])), interactions: approveAll() });
    const pending = h.agent.executor.execute([
      { id: '1', name: t1, arguments: i1 },
      { id: '2', name: t2, arguments: i2 },
    ]);
    // Let everything that could start, start.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start:a']);
    firstHeld.resolve();
    await pending;
    expect(log).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
  });

  test('a conflicting call never overtakes an earlier one, while independent later calls do', async () => {
    const log: string[] = [];
    const hold = deferred();
    h = openHarness({ cwd: dir.path, tools: loggingTools(log, new Map([['a', hold.promise]])), interactions: approveAll() });
    const pending = h.agent.executor.execute([
      { id: '1', name: 'W', arguments: { id: 'a', path: 'x' } },
      { id: '2', name: 'R', arguments: { id: 'b', path: 'x' } },
      { id: '3', name: 'R', arguments: { id: 'c', path: 'y' } },
      { id: '4', name: 'W', arguments: { id: 'd', path: 'x' } },
    ]);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // b (reads x) waits behind a (writes x); c (reads y) overtakes freely; d (writes x) waits for both.
    expect([...log].sort()).toEqual(['end:c', 'start:a', 'start:c']);
    hold.resolve();
    await pending;
    expect(log.slice(3)).toEqual(['end:a', 'start:b', 'end:b', 'start:d', 'end:d']);
  });

  test('one call failing never cancels an independent call', async () => {
    const log: string[] = [];
    h = openHarness({ cwd: dir.path, tools: loggingTools(log), interactions: approveAll() });
    const results = await h.agent.executor.execute([
      { id: '1', name: 'W', arguments: { id: 'fail1', path: 'x' } },
      { id: '2', name: 'W', arguments: { id: 'b', path: 'y' } },
      { id: '3', name: 'R', arguments: { id: 'c', path: 'x' } },
    ]);
    expect(results.map((r) => [r.output, r.outcome])).toEqual([
      ['Tool "W" failed: fail1 broke', 'executed'],
      ['W b', 'executed'],
      ['R c', 'executed'],
    ]);
  });

  test('an approved, conflict-free call starts while a later call still waits for approval', async () => {
    const log: string[] = [];
    const approvalFor2 = deferred<void>();
    const interactions = new FakeHost({
      approval: async (request) => {
        if (request.toolCallId === '2') await approvalFor2.promise;
        return { decision: 'approve' };
      },
    });
    h = openHarness({ cwd: dir.path, tools: loggingTools(log), interactions });
    const pending = h.agent.executor.execute([
      { id: '1', name: 'W', arguments: { id: 'a', path: 'x' } },
      { id: '2', name: 'W', arguments: { id: 'b', path: 'y' } },
      { id: '3', name: 'R', arguments: { id: 'c', path: 'y' } },
    ]);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // Call 1 ran to the end while call 2 still waits for its approval; call 3 (conflicting with 2) waits too.
    expect(log).toEqual(['start:a', 'end:a']);
    expect(interactions.approvals.map((r) => r.toolCallId)).toEqual(['1', '2']);
    approvalFor2.resolve();
    await pending;
    expect(log).toEqual(['start:a', 'end:a', 'start:b', 'end:b', 'start:c', 'end:c']);
    expectPairedEvents(h.events, ['1', '2', '3']);
  });
});

describe('abort', () => {
  test('the signal reaches running tools; queued calls end aborted without running', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    h = openHarness({
      cwd: dir.path,
      interactions: approveAll(),
      tools: [
        testTool<Op>('Waits', {
          accesses: () => [ToolAccesses.writeFile(`${dir.path}/x`)],
          execute: (input, ctx) =>
            new Promise((resolve) => {
              log.push(`start:${input.id}`);
              ctx.signal.addEventListener('abort', () => {
                log.push(`saw abort:${input.id}`);
                resolve({ output: `stopped ${input.id}`, isError: true });
              });
            }),
        }),
      ],
    });
    const pending = h.agent.executor.execute(
      [
        { id: '1', name: 'Waits', arguments: { id: 'a' } },
        { id: '2', name: 'Waits', arguments: { id: 'b' } },
      ],
      { signal: controller.signal },
    );
    for (let i = 0; i < 20 && log.length === 0; i++) await new Promise((r) => setImmediate(r));
    controller.abort();
    const results = await pending;
    expect(log).toEqual(['start:a', 'saw abort:a']);
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['aborted', 'stopped a'],
      ['aborted', 'Tool "Waits" was aborted'],
    ]);
    expectPairedEvents(h.events, ['1', '2']);
  });

  test('a tool that ignores the abort is given up on after the grace period', async () => {
    const never = new Promise<never>(() => undefined);
    const controller = new AbortController();
    h = openHarness({
      cwd: dir.path,
      config: { executor: { abortGraceMs: 50 } },
      tools: [testTool('Stubborn', { accesses: () => [], approval: 'auto', execute: () => never })],
    });
    const started = deferred();
    h.agent.executor.onToolCallStarted(() => started.resolve());
    const pending = h.agent.executor.execute([{ id: '1', name: 'Stubborn', arguments: {} }], { signal: controller.signal });
    await started.promise;
    controller.abort();
    const [result] = await pending;
    expect(result).toMatchObject({ outcome: 'aborted', output: 'Tool "Stubborn" was aborted', isError: true });
  });

  test('a batch aborted before it starts runs nothing', async () => {
    let ran = false;
    h = openHarness({ cwd: dir.path, tools: [testTool('T', { accesses: () => [], approval: 'auto', execute: () => ((ran = true), { output: '' }) })] });
    const results = await h.agent.executor.execute([{ id: '1', name: 'T', arguments: {} }], { signal: AbortSignal.abort() });
    expect(results[0]).toMatchObject({ outcome: 'aborted', output: 'Tool "T" was aborted' });
    expect(ran).toBe(false);
  });

  test('an abort while waiting for approval cancels the request', async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const interactions = new FakeHost({
      approval: (_request, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('cancelled'));
          });
        }),
    });
    h = openHarness({ cwd: dir.path, interactions, tools: [testTool('T', { accesses: () => ToolAccesses.all() })] });
    const pending = h.agent.executor.execute([{ id: '1', name: 'T', arguments: {} }], { signal: controller.signal });
    for (let i = 0; i < 20 && interactions.requests.length === 0; i++) await new Promise((r) => setImmediate(r));
    controller.abort();
    const [result] = await pending;
    expect(sawAbort).toBe(true);
    expect(result).toMatchObject({ outcome: 'aborted', output: 'Tool "T" was aborted' });
  });
});

test('at most executor.maxConcurrentCalls independent calls run at once; the waiting ones start earliest first', async () => {
  const log: string[] = [];
  const gates = new Map(['a', 'b', 'c', 'd', 'e'].map((id) => [id, deferred()]));
  h = openHarness({
    cwd: dir.path,
    config: { executor: { maxConcurrentCalls: 2 } },
    tools: loggingTools(log, new Map([...gates].map(([id, gate]) => [id, gate.promise]))),
    interactions: approveAll(),
  });
  const ids = [...gates.keys()];
  const pending = h.agent.executor.execute(ids.map((id) => ({ id, name: 'R', arguments: { id, path: `file-${id}` } })));
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  await settle();
  expect(log).toEqual(['start:a', 'start:b']);
  gates.get('b')!.resolve();
  await settle();
  expect(log).toEqual(['start:a', 'start:b', 'end:b', 'start:c']);
  for (const gate of gates.values()) gate.resolve();
  const results = await pending;
  expect(results.map((r) => r.outcome)).toEqual(['executed', 'executed', 'executed', 'executed', 'executed']);
  expect(log.filter((e) => e.startsWith('start:'))).toEqual(['start:a', 'start:b', 'start:c', 'start:d', 'start:e']);
});

test("what a finished call's tool returned is let go while later calls of its batch still run", async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const held = deferred();
  const finished = deferred();
  // The execution resolveExecution returned and the result execute returned: the executor copies
  // both, so once the call finished nothing may keep them (a race on the batch's abort did).
  const returned: WeakRef<object>[] = [];
  h = openHarness({
    cwd: dir.path,
    tools: [
      testTool<{ id: string }>('T', {
        approval: 'auto',
        resolve: ({ id }) => {
          const execution = {
            accesses: [],
            approvalRule: 'T',
            execute: async () => {
              if (id === 'held') await held.promise;
              const result = { output: id };
              if (id === 'first') returned.push(new WeakRef(result));
              return result;
            },
          };
          if (id === 'first') returned.push(new WeakRef(execution));
          return execution;
        },
      }),
    ],
  });
  h.agent.executor.onToolCallFinished((e) => {
    if (e.toolCallId === 'first') finished.resolve();
  });
  const pending = h.agent.executor.execute([
    { id: 'first', name: 'T', arguments: '{"id":"first"}' },
    { id: 'second', name: 'T', arguments: '{"id":"held"}' },
  ]);
  await finished.promise;
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  // Resolved in preflight and again right before it ran, then executed.
  expect(returned).toHaveLength(3);
  expect(returned.map((ref) => ref.deref())).toEqual([undefined, undefined, undefined]);
  held.resolve();
  expect((await pending).map((r) => r.output)).toEqual(['first', 'held']);
});

describe('executeEach', () => {
  const idTool = (holds: Map<string, Promise<void>>) =>
    testTool<{ id: string }>('T', {
      approval: 'auto',
      // Declared to touch nothing, so the calls run side by side.
      accesses: () => [],
      execute: async ({ id }) => {
        await holds.get(id);
        return { output: id };
      },
    });

  test('hands each result over in call order, as soon as it and the earlier ones are in', async () => {
    const gate = deferred();
    h = openHarness({ cwd: dir.path, tools: [idTool(new Map([['a', gate.promise]]))] });
    const got: string[] = [];
    const pending = h.agent.executor.executeEach(
      ['a', 'b', 'c'].map((id) => ({ id, name: 'T', arguments: { id } })),
      (result, index) => got.push(`${index}:${String(result.output)}`),
    );
    // b and c are done, but a is not: nothing may be handed over out of order.
    await waitFor(() => h.events.includes('finished:c:executed'), { what: 'c to finish' });
    expect(got).toEqual([]);
    gate.resolve();
    await pending;
    expect(got).toEqual(['0:a', '1:b', '2:c']);
  });

  test('keeps no result it has handed over while later calls of the batch still run', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const held = deferred();
    h = openHarness({ cwd: dir.path, tools: [idTool(new Map([['held', held.promise]]))] });
    const handed: WeakRef<object>[] = [];
    const pending = h.agent.executor.executeEach(
      ['first', 'held'].map((id) => ({ id, name: 'T', arguments: { id } })),
      (result) => handed.push(new WeakRef(result)),
    );
    await waitFor(() => handed.length === 1, { what: 'the first result' });
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      gc();
    }
    expect(handed[0]!.deref()).toBeUndefined();
    held.resolve();
    await pending;
    expect(handed).toHaveLength(2);
  });

  test('a sink that throws: no later result is handed over, calls not started do not run, and the error is the promise\'s', async () => {
    h = openHarness({ cwd: dir.path, tools: [idTool(new Map())], config: { executor: { maxConcurrentCalls: 1 } } });
    const got: number[] = [];
    const calls = Array.from({ length: 300 }, (_, i) => ({ id: `c${i}`, name: 'T', arguments: { id: `c${i}` } }));
    await expect(
      h.agent.executor.executeEach(calls, (_result, index) => {
        got.push(index);
        throw new Error('stdout is gone');
      }),
    ).rejects.toThrow('stdout is gone');
    expect(got).toEqual([0]);
    // The first preflight window (128 calls with one run slot) had started; the rest never ran.
    expect(h.startedEvents.length).toBeLessThan(calls.length);
  });
});

describe('ToolScheduler', () => {
  const w = (p: string): Accesses => [ToolAccesses.writeFile(p)];
  const r = (p: string): Accesses => [ToolAccesses.readFile(p)];

  test('a preparing earlier task blocks a conflicting later one, not an independent one', async () => {
    const s = new ToolScheduler();
    const t0 = s.add(w('/a'));
    const t1 = s.add(r('/a'));
    const t2 = s.add(r('/b'));
    const started: number[] = [];
    void s.whenStartable(t1).then(() => started.push(1));
    void s.whenStartable(t2).then(() => started.push(2));
    await new Promise((res) => setImmediate(res));
    expect(started).toEqual([2]);
    s.finish(t0);
    await new Promise((res) => setImmediate(res));
    expect(started).toEqual([2, 1]);
    expect(s.running()).toEqual([1, 2]);
  });

  test('a running task retargeted onto the file of a running task waits for it; tasks its old accesses held back start', async () => {
    const s = new ToolScheduler();
    const t0 = s.add(w('/a'));
    const t1 = s.add(w('/b'));
    const t2 = s.add(r('/b'));
    await s.whenStartable(t0);
    await s.whenStartable(t1);
    const started: number[] = [];
    void s.whenStartable(t2).then(() => started.push(2));
    // t1 was resolved again: it now writes /a, which t0 still writes.
    void s.retarget(t1, w('/a')).then(() => started.push(1));
    await new Promise((res) => setImmediate(res));
    expect(started).toEqual([2]);
    expect(s.running()).toEqual([0, 2]);
    s.finish(t0);
    await new Promise((res) => setImmediate(res));
    expect(started).toEqual([2, 1]);
    expect(s.running()).toEqual([1, 2]);
  });

  test('only a running task can be retargeted', () => {
    const s = new ToolScheduler();
    const t0 = s.add(w('/a'));
    expect(() => s.retarget(t0, w('/b'))).toThrow('Task 0 is preparing, not running.');
  });

  test('tasks that touch nothing never wait', async () => {
    const s = new ToolScheduler();
    s.add(ToolAccesses.all());
    const free = s.add(ToolAccesses.none());
    await s.whenStartable(free);
    expect(s.running()).toEqual([1]);
  });
});

test('many concurrent batches without a signal do not pile up abort listeners', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  h = openHarness({ cwd: dir.path, tools: [testTool('T', { accesses: () => [], approval: 'auto', execute: async () => ({ output: 'ok' }) })] });
  const batches = await Promise.all(Array.from({ length: 30 }, (_, i) => h.agent.executor.execute([{ id: String(i), name: 'T', arguments: {} }])));
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  expect(batches.every(([r]) => r!.outcome === 'executed')).toBe(true);
  expect(warnings).toEqual([]);
});

describe('the preflight window', () => {
  // With one run slot the window is its minimum, 128 calls: the batch is larger, so the later
  // calls must wait for earlier ones to end before they are resolved.
  const BATCH = 300;
  const WINDOW = 128;

  test('at most 128 calls are resolved and not yet ended at once, and every call still gets its result in order', async () => {
    // Resolved again right before it runs (the recheck), so count calls, not resolutions.
    const open = new Set<string>();
    let mostOpen = 0;
    h = openHarness({
      cwd: dir.path,
      config: { executor: { maxConcurrentCalls: 1 } },
      tools: [
        testTool<{ id: string }>('T', {
          approval: 'auto',
          resolve: ({ id }) => {
            open.add(id);
            mostOpen = Math.max(mostOpen, open.size);
            return {
              accesses: [],
              approvalRule: 'T',
              execute: async () => {
                await new Promise((r) => setImmediate(r));
                open.delete(id);
                return { output: `done ${id}` };
              },
            };
          },
        }),
      ],
      interactions: approveAll(),
    });
    const calls = Array.from({ length: BATCH }, (_, i) => ({ id: `c${i}`, name: 'T', arguments: { id: `c${i}` } }));
    const results = await h.agent.executor.execute(calls);
    expect(results.map((r) => r.output)).toEqual(calls.map((c) => `done ${c.id}`));
    expect(mostOpen).toBe(WINDOW);
  });

  test('a call that stops the batch skips the later calls of every later window', async () => {
    h = openHarness({
      cwd: dir.path,
      config: { executor: { maxConcurrentCalls: 1 } },
      tools: [testTool<{ id: string }>('T', { approval: 'auto', accesses: () => [], stopBatchAfterThis: ({ id }) => id === 'c200' })],
      interactions: approveAll(),
    });
    const calls = Array.from({ length: BATCH }, (_, i) => ({ id: `c${i}`, name: 'T', arguments: { id: `c${i}` } }));
    const outcomes = (await h.agent.executor.execute(calls)).map((r) => r.outcome);
    expect(outcomes.slice(0, 201)).toEqual(Array(201).fill('executed'));
    expect(outcomes.slice(201)).toEqual(Array(BATCH - 201).fill('skipped'));
  });
});
