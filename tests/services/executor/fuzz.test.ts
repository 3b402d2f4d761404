import * as nodePath from 'node:path';
import { ToolAccesses } from '../../../src/tool/accesses';
import type { ToolAccesses as Accesses } from '../../../src/tool/accesses';
import type { ToolExecution, ToolResult } from '../../../src/tool/contract';
import type { ToolCall, ToolCallOutcome, ToolCallResult } from '../../../src/services/executor/toolExecutor';
import type { InteractionResponse } from '../../../src/services/interaction/interaction';
import { useAgent } from '../../helpers/agentHarness';
import { FakeHost } from '../../helpers/fakeHost';
import { prng } from '../../helpers/prng';
import { throwingGettersError, throwingProxy } from '../../helpers/hostile';
import { testTool } from '../../helpers/testTools';
import { captureUncaughtExceptions } from '../../helpers/uncaught';

/**
 * Hostile tools, hooks, hosts and listeners through the real executor: each batch is a generated
 * combination (seeded, so a failure can be replayed with TOOLHOST_FUZZ_SEED) of throwing getters,
 * Proxies whose traps throw, promises that never settle, cyclic values as results, arguments and
 * metadata, throwing listeners, and aborts at random points. For every batch: execute() resolves,
 * one result per call in call order, exactly one started and one finished event per call (started
 * first), every listener (and did-hook) error is reported on onListenerError, and nothing is uncaught (an
 * unhandled rejection fails the test through jest's own handler).
 */
const fx = useAgent({ config: { executor: { abortGraceMs: 5 } } });

const SEED = Number(process.env.TOOLHOST_FUZZ_SEED ?? 20250101);
const BATCHES = 300;
const MAX_CALLS = 5;

const RESOLVE = ['async', 'throw', 'hostileThrow', 'proxy', 'never', 'errorResult', 'accessesGetter', 'isErrorGetter', 'changes', 'cyclicDisplay'] as const;
const ACCESS = ['none', 'read', 'write', 'all'] as const;
const EXECUTE = ['throw', 'hostileThrow', 'hostileReject', 'never', 'proxyResult', 'outputGetter', 'cyclicResult', 'progress', 'abortBatch', 'lateReject'] as const;
const BEFORE = ['throw', 'veto', 'vetoHostile', 'waitNever', 'waitReject', 'passCyclic', 'passProxy', 'allow', 'returnProxy'] as const;
const WILL = ['throw', 'never', 'returnProxy'] as const;
const DID = ['throw', 'never', 'proxyResult', 'cyclicResult', 'stopTurn'] as const;
const HOST = ['reject', 'throw', 'never', 'proxy'] as const;
const ARGS = ['cyclic', 'proxy', 'badJson', 'unknownTool'] as const;
const ABORT = ['none', 'none', 'pre', 'ticks', 'ticks', 'inListener'] as const;
const OUTCOMES: readonly ToolCallOutcome[] = ['executed', 'rejected', 'resolution-failed', 'denied', 'vetoed', 'skipped', 'aborted', 'synthetic'];

interface CallPlan {
  readonly resolve: 'ok' | (typeof RESOLVE)[number];
  readonly access: (typeof ACCESS)[number];
  readonly path: number;
  readonly execute: 'ok' | (typeof EXECUTE)[number];
  readonly before: 'none' | (typeof BEFORE)[number];
  readonly will: 'none' | (typeof WILL)[number];
  readonly did: 'none' | (typeof DID)[number];
  readonly host: 'approve' | (typeof HOST)[number];
  readonly args: 'json' | (typeof ARGS)[number];
}

interface BatchPlan {
  readonly calls: readonly CallPlan[];
  readonly abort: (typeof ABORT)[number];
  readonly abortAfterTicks: number;
  readonly throwingListeners: { readonly started: boolean; readonly progress: boolean; readonly finished: boolean; readonly reporter: boolean };
}

function generate(random: () => number): BatchPlan {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  // Each part of a call is ordinary most of the time, so that hostile parts meet calls that get far.
  const hostileOr = <T>(ordinary: T, values: readonly T[]): T => (random() < 0.75 ? ordinary : pick(values));
  const calls = Array.from({ length: 1 + Math.floor(random() * MAX_CALLS) }, () => ({
    resolve: hostileOr('ok' as const, RESOLVE),
    access: pick(ACCESS),
    path: Math.floor(random() * 3),
    execute: hostileOr('ok' as const, EXECUTE),
    before: hostileOr('none' as const, BEFORE),
    will: hostileOr('none' as const, WILL),
    did: hostileOr('none' as const, DID),
    host: hostileOr('approve' as const, HOST),
    args: hostileOr('json' as const, ARGS),
  }));
  return {
    calls,
    abort: pick(ABORT),
    abortAfterTicks: Math.floor(random() * 6),
    throwingListeners: { started: random() < 0.2, progress: random() < 0.2, finished: random() < 0.2, reporter: random() < 0.2 },
  };
}

/** Whether something in the batch may never settle: then the batch must be aborted to end. */
function mayHang(plan: BatchPlan): boolean {
  return plan.calls.some(
    (c) => c.resolve === 'never' || c.execute === 'never' || c.before === 'waitNever' || c.will === 'never' || c.did === 'never' || c.host === 'never',
  );
}

const never = () => new Promise<never>(() => undefined);
const cyclic = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
};
const withThrowingGetter = (target: object, key: string): object =>
  Object.defineProperty(target, key, {
    get() {
      throw throwingGettersError();
    },
  });

test(`hostile tools and hooks never break the executor's invariants (seed ${SEED}, ${BATCHES} batches)`, async () => {
  const random = prng(SEED);
  const plans = new Map<string, CallPlan>();
  const planOf = (id: string): CallPlan | undefined => plans.get(id);
  let batch: BatchPlan | undefined;
  let controller = new AbortController();
  let listenerThrows = 0;
  let listenerReports = 0;

  const at = (plan: CallPlan) => nodePath.join(fx.dir, `f${plan.path}`);
  const accessesOf = (plan: CallPlan, access = plan.access): Accesses =>
    access === 'none' ? [] : access === 'read' ? [ToolAccesses.readFile(at(plan))] : access === 'write' ? [ToolAccesses.writeFile(at(plan))] : ToolAccesses.all();
  const resolutions = new Map<string, number>();

  const execute = async (plan: CallPlan, ctx: { onUpdate(update: { kind: 'status'; text?: string }): void }): Promise<ToolResult> => {
    switch (plan.execute) {
      case 'ok':
        return { output: 'ok' };
      case 'throw':
        throw new Error('tool broke');
      case 'hostileThrow':
        throw throwingProxy();
      case 'hostileReject':
        return Promise.reject(throwingGettersError());
      case 'never':
        return never();
      case 'proxyResult':
        return throwingProxy() as ToolResult;
      case 'outputGetter':
        return withThrowingGetter({}, 'output') as ToolResult;
      case 'cyclicResult':
        return { output: 'cyclic', structuredContent: cyclic() };
      case 'progress':
        ctx.onUpdate({ kind: 'status', text: 'half way' });
        ctx.onUpdate(cyclic() as never);
        return { output: 'progressed' };
      case 'abortBatch':
        controller.abort();
        return { output: 'aborted my own batch' };
      case 'lateReject':
        return new Promise((_, reject) => setTimeout(() => reject(throwingProxy()), 10));
    }
  };

  const fuzzTool = testTool('Fuzz', {
    resolve: (input): ToolExecution | Promise<ToolExecution> => {
      const id = input.id ?? '';
      const plan = planOf(id);
      if (!plan) return { isError: true, output: 'no plan' };
      const round = (resolutions.get(id) ?? 0) + 1;
      resolutions.set(id, round);
      const runnable = {
        accesses: plan.resolve === 'changes' && round > 1 ? accessesOf(plan, 'write') : accessesOf(plan),
        approvalRule: `Fuzz(${id})`,
        description: `fuzz ${id}`,
        execute: (ctx: Parameters<typeof execute>[1]) => execute(plan, ctx),
      };
      switch (plan.resolve) {
        case 'ok':
        case 'changes':
          return runnable;
        case 'async':
          return Promise.resolve(runnable);
        case 'throw':
          throw new Error('cannot resolve');
        case 'hostileThrow':
          throw throwingGettersError();
        case 'proxy':
          return throwingProxy() as ToolExecution;
        case 'never':
          return never();
        case 'errorResult':
          return { isError: true, output: 'nothing to do' };
        case 'accessesGetter':
          return withThrowingGetter({ ...runnable, accesses: undefined }, 'accesses') as ToolExecution;
        case 'isErrorGetter':
          return withThrowingGetter({ ...runnable }, 'isError') as ToolExecution;
        case 'cyclicDisplay':
          return { ...runnable, display: cyclic() as never };
      }
    },
  });

  const host = new FakeHost({
    approval: (request): InteractionResponse<'approval'> | Promise<InteractionResponse<'approval'>> => {
      switch (planOf(request.toolCallId)?.host ?? 'approve') {
        case 'approve':
          return { decision: 'approve' };
        case 'reject':
          return { decision: 'reject', feedback: 'no' };
        case 'throw':
          throw throwingProxy();
        case 'never':
          return never();
        case 'proxy':
          return throwingProxy() as InteractionResponse<'approval'>;
      }
    },
  });
  const h = fx.open({ tools: [fuzzTool], interactions: host });
  const executor = h.agent.executor;

  // Hooks, in every position, driven by the plan of the call they see.
  executor.onBeforeExecuteTool((ctx) => {
    switch (planOf(ctx.toolCallId)?.before) {
      case 'throw':
        throw new Error('before broke');
      case 'veto':
        return ctx.veto({ output: 'vetoed by fuzz', isError: true });
      case 'vetoHostile':
        return ctx.veto(throwingProxy() as ToolResult, 'executed' as never);
      case 'waitNever':
        return ctx.waitUntil(never());
      case 'waitReject':
        return ctx.waitUntil(Promise.reject(throwingGettersError()));
      case 'passCyclic':
        return ctx.pass(cyclic());
      case 'passProxy':
        return ctx.pass(throwingProxy() as Record<string, unknown>);
      case 'allow':
        return ctx.allow();
      case 'returnProxy':
        return throwingProxy() as Promise<void>;
    }
  });
  executor.onWillExecuteTool((ctx) => {
    switch (planOf(ctx.toolCallId)?.will) {
      case 'throw':
        throw throwingGettersError();
      case 'never':
        return never();
      case 'returnProxy':
        return throwingProxy() as Promise<void>;
    }
  });
  executor.onDidExecuteTool((ctx) => {
    switch (planOf(ctx.toolCallId)?.did) {
      case 'throw':
        // A did-hook's failure is reported like a listener's.
        listenerThrows++;
        throw throwingProxy();
      case 'never':
        return never();
      case 'proxyResult':
        ctx.result = throwingProxy() as ToolResult;
        return;
      case 'cyclicResult':
        ctx.result = { output: 'did', structuredContent: cyclic() };
        return;
      case 'stopTurn':
        return ctx.stopTurn();
    }
  });

  // Listeners: the recording ones first (the harness's), then hostile ones switched per batch.
  const hostileListener = (which: 'started' | 'progress' | 'finished') => () => {
    if (!batch?.throwingListeners[which]) return;
    listenerThrows++;
    throw which === 'started' ? throwingProxy() : throwingGettersError();
  };
  executor.onToolCallStarted(() => {
    if (batch?.abort === 'inListener') controller.abort();
  });
  executor.onToolCallStarted(hostileListener('started'));
  executor.onToolProgress(hostileListener('progress'));
  executor.onToolCallFinished(hostileListener('finished'));
  executor.onListenerError(() => void listenerReports++);
  executor.onListenerError(() => {
    if (batch?.throwingListeners.reporter) throw throwingProxy();
  });

  const uncaught = captureUncaughtExceptions();
  const violations: string[] = [];
  try {
    for (let n = 0; n < BATCHES; n++) {
      batch = generate(random);
      controller = new AbortController();
      const calls: ToolCall[] = batch.calls.map((plan, i) => {
        const id = `b${n}c${i}`;
        plans.set(id, plan);
        switch (plan.args) {
          case 'json':
            return { id, name: 'Fuzz', arguments: JSON.stringify({ id }) };
          case 'cyclic':
            return { id, name: 'Fuzz', arguments: { id, ...cyclic() } };
          case 'proxy':
            return { id, name: 'Fuzz', arguments: throwingProxy() as Record<string, unknown> };
          case 'badJson':
            return { id, name: 'Fuzz', arguments: '{"id": ' };
          case 'unknownTool':
            return { id, name: 'Fuzzz', arguments: JSON.stringify({ id }) };
        }
      });
      const where = `seed ${SEED}, batch ${n} (${JSON.stringify(batch)})`;
      const eventsBefore = h.events.length;
      const throwsBefore = listenerThrows;
      const reportsBefore = listenerReports;
      if (batch.abort === 'pre') controller.abort();
      let done = false;
      // Drives the abort (never a timing assertion): after some turns of the event loop, and always when something may hang.
      const aborter = (async () => {
        if (batch.abort !== 'ticks' && !mayHang(batch)) return;
        const ticks = batch.abort === 'ticks' ? batch.abortAfterTicks : 10;
        for (let t = 0; t < ticks && !done; t++) await new Promise((resolve) => setImmediate(resolve));
        controller.abort();
      })();
      let results: ToolCallResult[] | undefined;
      try {
        results = await h.agent.executor.execute(calls, { signal: controller.signal });
      } catch {
        violations.push(`${where}: execute() rejected`);
      }
      done = true;
      await aborter;
      // Late rejections of given-up work (lateReject) surface here, inside this test.
      await new Promise((resolve) => setTimeout(resolve, 15));

      if (results) {
        if (results.map((r) => r.toolCallId).join() !== calls.map((c) => c.id).join()) violations.push(`${where}: results not one per call in call order`);
        for (const r of results) {
          if (!OUTCOMES.includes(r.outcome) || typeof r.isError !== 'boolean' || (typeof r.output !== 'string' && !Array.isArray(r.output))) {
            violations.push(`${where}: malformed result for ${r.toolCallId}`);
          }
        }
      }
      const events = h.events.slice(eventsBefore);
      for (const { id } of calls) {
        const started = events.filter((e) => e === `started:${id}`);
        const finished = events.filter((e) => e.startsWith(`finished:${id}:`));
        if (started.length !== 1 || finished.length !== 1 || events.indexOf(started[0]!) > events.indexOf(finished[0]!)) {
          violations.push(`${where}: ${id} had ${started.length} started and ${finished.length} finished events`);
        }
      }
      if (events.length !== calls.length * 2) violations.push(`${where}: ${events.length} events for ${calls.length} calls`);
      if (listenerReports - reportsBefore !== listenerThrows - throwsBefore) {
        violations.push(`${where}: ${listenerThrows - throwsBefore} listener errors, ${listenerReports - reportsBefore} reported`);
      }
      if (uncaught.errors.length > 0) violations.push(`${where}: ${uncaught.errors.splice(0).length} uncaught exceptions`);
    }
  } finally {
    uncaught.dispose();
  }
  expect(violations).toEqual([]);
}, 120_000);
