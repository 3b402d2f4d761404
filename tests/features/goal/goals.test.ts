import { createGoalFeature } from '../../../src/features/goal/goalFeature';
import { IAgentGoalService, type GoalReport } from '../../../src/features/goal/contract';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { IAgentStateStore, type AgentStateWarning } from '../../../src/services/agentState/agentState';
import { agentStateFilePath } from '../../../src/services/agentState/fileAgentStateStore';
import { IClock } from '../../../src/services/clock/clock';
import { FakeHost, approve } from '../../helpers/fakeHost';
import { type Harness, type HarnessOptions, useAgent } from '../../helpers/agentHarness';

const fixture = useAgent({ tempDataDir: true });
const START = Date.parse('2026-03-01T10:00:00.000Z');

/** A clock the test moves by hand. */
class FakeClock implements IClock {
  constructor(public at = START) {}
  now(): number {
    return this.at;
  }
  setTimer(): never {
    throw new Error('This test sets no timers.');
  }
}

function open(options: Partial<HarnessOptions> & { clock?: FakeClock } = {}): Harness & { goals: IAgentGoalService; clock: FakeClock } {
  const clock = options.clock ?? new FakeClock();
  const h = fixture.open({
    id: 'main',
    features: [createGoalFeature()],
    appOverrides: (c) => c.rebind(IClock).toConstantValue(clock),
    interactions: new FakeHost({ approval: approve }),
    ...options,
  });
  return Object.assign(h, { goals: h.agent.get(IAgentGoalService), clock });
}
const NO_GOAL = 'There is no goal; CreateGoal starts one when the user asks for it.';

describe('goal tools through the executor', () => {
  test('"no goal" is an error that says what to do, for GetGoal, UpdateGoal and SetGoalBudget', async () => {
    const h = open();
    for (const [name, args] of [
      ['GetGoal', {}],
      ['UpdateGoal', { status: 'complete', reason: 'done' }],
      ['SetGoalBudget', { value: 5000, unit: 'tokens' }],
    ] as const) {
      const result = await h.call(name, args);
      expect([name, result.isError, result.output]).toEqual([name, true, NO_GOAL]);
    }
    expect(await h.goals.shouldContinue()).toBe(false);
  });

  test('CreateGoal, then GetGoal as key: value lines with structured content; a second CreateGoal needs replace', async () => {
    const h = open();
    const created = await h.call('CreateGoal', { objective: 'Make the parser handle CRLF', completion_criterion: 'npm test passes', token_budget: 10_000 });
    expect([created.outcome, created.isError]).toEqual(['executed', false]);
    h.clock.at += 90_000;
    const got = await h.call('GetGoal', {});
    expect(got.output).toBe(
      [
        'goal_id: g1',
        'status: active',
        'objective: Make the parser handle CRLF',
        'completion_criterion: npm test passes',
        'tokens_used: 0',
        'tokens_budget: 10000',
        'tokens_remaining: 10000',
        'turns: 0',
        'created_at: 2026-03-01T10:00:00.000Z',
        'elapsed: 1 min 30 s',
        'over_budget: false',
      ].join('\n'),
    );
    expect(got.structuredContent).toMatchObject({ goal_id: 'g1', status: 'active', tokens_budget: 10000, over_budget: false });
    const again = await h.call('CreateGoal', { objective: 'Something else' });
    expect([again.isError, again.output]).toEqual([true, 'A goal is active ("Make the parser handle CRLF"); set replace: true only if the user asked to replace it.']);
    const replaced = await h.call('CreateGoal', { objective: 'Something else', replace: true });
    expect(replaced.output).toMatch(/^goal_id: g2\nstatus: active\nobjective: Something else\n/);
  });

  test('budget arithmetic fed by recordUsage; shouldContinue; budget_limited, and raising the budget makes it active again', async () => {
    const h = open();
    await h.goals.create({ objective: 'Port the CLI', tokenBudget: 5000 });
    const events: GoalReport[] = [];
    h.goals.onDidChange((r) => events.push(r));
    expect(await h.goals.recordUsage({ tokens: 3000, turns: 1 })).toMatchObject({ status: 'active', tokensUsed: 3000, turns: 1, remaining: { tokens: 2000 } });
    expect(await h.goals.shouldContinue()).toBe(true);
    expect(await h.goals.recordUsage({ tokens: 2500, turns: 1 })).toMatchObject({ status: 'budget_limited', tokensUsed: 5500, overBudget: true, remaining: { tokens: 0 } });
    expect(await h.goals.shouldContinue()).toBe(false);
    expect(events.map((e) => e.status)).toEqual(['active', 'budget_limited']);
    // Usage still counts while limited; a raise that stays below it keeps the goal limited.
    const low = await h.call('SetGoalBudget', { value: 5000, unit: 'tokens' });
    expect(low.output).toContain('Budget set to 5000 tokens; the goal is still over budget.');
    const raised = await h.call('SetGoalBudget', { value: 20_000, unit: 'tokens' });
    expect(raised.output).toMatch(/^goal_id: g1\nstatus: active\n[^]*tokens_remaining: 14500\n[^]*\n\nBudget set to 20000 tokens; the goal is active\.$/);
    expect(await h.goals.shouldContinue()).toBe(true);
    // Time: a budget of 2 minutes from creation, on the fake clock.
    await h.call('SetGoalBudget', { value: 2, unit: 'minutes' });
    h.clock.at += 119_000;
    expect(await h.goals.get()).toMatchObject({ status: 'active', remaining: { timeMs: 1000 } });
    h.clock.at += 1000;
    expect(await h.goals.get()).toMatchObject({ status: 'budget_limited', overBudget: true });
    await h.call('SetGoalBudget', { value: 1, unit: 'hours' });
    expect(await h.goals.get()).toMatchObject({ status: 'active', timeBudgetMs: 3_600_000, remaining: { timeMs: 3_480_000 } });
    // Turns.
    await h.call('SetGoalBudget', { value: 3, unit: 'turns' });
    await h.goals.recordUsage({ tokens: 0, turns: 1 });
    expect(await h.goals.get()).toMatchObject({ status: 'budget_limited', turns: 3, remaining: { turns: 0 } });
    await expect(h.goals.recordUsage({ tokens: -1, turns: 1 })).rejects.toThrow("recordUsage: tokens is a count of this turn's tokens (a whole number ≥ 0), not -1.");
    await expect(h.goals.recordUsage({ tokens: 5 } as never)).rejects.toThrow("recordUsage: turns is a count of this turn's turns (a whole number ≥ 0), not undefined.");
    expect(await h.goals.get()).toMatchObject({ tokensUsed: 5500, turns: 3 });
  });

  test.each([
    [{ value: 999, unit: 'tokens' }, 'A token budget is a whole number of at least 1000 tokens; 999 is not.'],
    [{ value: 1500.5, unit: 'tokens' }, 'A token budget is a whole number of at least 1000 tokens; 1500.5 is not.'],
    [{ value: 25, unit: 'hours' }, 'A time budget is between 1 minute and 24 hours; 25 hours is not.'],
    [{ value: 0.5, unit: 'minutes' }, 'A time budget is between 1 minute and 24 hours; 0.5 minutes is not.'],
    [{ value: 1.5, unit: 'turns' }, 'A turn budget is a whole number of turns; 1.5 is not.'],
  ])('SetGoalBudget %j out of range is an error, never success text', async (args, message) => {
    const h = open();
    await h.goals.create({ objective: 'x' });
    const result = await h.call('SetGoalBudget', args);
    expect([result.isError, result.output]).toEqual([true, message]);
  });

  test('SetGoalBudget asks by default with rule SetGoalBudget(<value> <unit>); a refusal changes nothing; the rest run unasked', async () => {
    const host = new FakeHost({ approval: (request) => ({ decision: request.approvalRule === 'SetGoalBudget(2 hours)' ? 'approve' : 'reject' }) });
    const h = open({ interactions: host });
    await h.call('CreateGoal', { objective: 'x' });
    await h.call('GetGoal', {});
    expect(host.approvals).toEqual([]);
    expect((await h.call('SetGoalBudget', { value: 50_000, unit: 'tokens' })).outcome).toBe('denied');
    expect((await h.goals.get())?.tokenBudget).toBeUndefined();
    expect((await h.call('SetGoalBudget', { value: 2, unit: 'hours' })).outcome).toBe('executed');
    expect(host.approvals.map((r) => r.approvalRule)).toEqual(['SetGoalBudget(50000 tokens)', 'SetGoalBudget(2 hours)']);
    expect((await h.goals.get())?.timeBudgetMs).toBe(7_200_000);
  });

  test('an approval.allow rule SetGoalBudget(* tokens) lets token budgets through unasked, not time budgets', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'reject' }) });
    const h = open({ interactions: host, config: { approval: { allow: ['SetGoalBudget(* tokens)'] } } });
    await h.goals.create({ objective: 'x' });
    expect((await h.call('SetGoalBudget', { value: 50_000, unit: 'tokens' })).outcome).toBe('executed');
    expect((await h.call('SetGoalBudget', { value: 2, unit: 'hours' })).outcome).toBe('denied');
    expect(host.approvals.map((r) => r.approvalRule)).toEqual(['SetGoalBudget(2 hours)']);
  });

  test('UpdateGoal: blocked needs a reason; complete stops the turn and skips the rest of the batch', async () => {
    const h = open();
    await h.goals.create({ objective: 'x' });
    const noReason = await h.call('UpdateGoal', { status: 'blocked' });
    expect([noReason.isError, noReason.output]).toEqual([true, 'A blocked goal needs a reason: say what blocks it and what would unblock it.']);
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'UpdateGoal', arguments: JSON.stringify({ status: 'complete', reason: 'tests pass' }) },
      { id: 'b', name: 'GetGoal', arguments: '{}' },
    ]);
    expect(results[0]).toMatchObject({ outcome: 'executed', stopTurn: true });
    expect(results[0]!.output).toMatch(/^goal_id: g1\nstatus: complete\nobjective: x\nreason: tests pass\n/);
    expect(results[1]!.outcome).not.toBe('executed');
    expect(await h.goals.shouldContinue()).toBe(false);
    // A finished goal does not block a new one, and takes no usage.
    expect(await h.goals.recordUsage({ tokens: 10, turns: 1 })).toBeUndefined();
    expect((await h.call('CreateGoal', { objective: 'next' })).output).toMatch(/^goal_id: g2\nstatus: active/);
  });

  test('the goal changed between resolve and execute: the call refuses instead of acting on another goal', async () => {
    const h = open();
    await h.goals.create({ objective: 'first' });
    const tool = h.agent.registry.get('UpdateGoal')!.tool;
    const execution = await tool.resolveExecution({ status: 'complete', reason: 'ok' } as never);
    await h.goals.create({ objective: 'second', replace: true });
    if (execution.isError) throw new Error('resolve failed');
    const result = await execution.execute({ toolCallId: 'x', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
    expect([result.isError, result.output]).toEqual([true, 'The goal changed since this call was made (it is now g2, "second"); call GetGoal and decide again.']);
    expect((await h.goals.get())?.status).toBe('active');
  });

  test('durable: an agent created again with the same id and data dir has its goal and usage', async () => {
    const first = open();
    await first.goals.create({ objective: 'Keep me', tokenBudget: 2000 });
    await first.goals.recordUsage({ tokens: 700, turns: 2 });
    await first.dispose();
    const second = open();
    expect(await second.goals.get()).toMatchObject({ goalId: 'g1', objective: 'Keep me', tokensUsed: 700, turns: 2, status: 'active' });
  });

  test('a goal file whose value is not a goal is set aside with a warning, not overwritten by the next CreateGoal', async () => {
    const file = agentStateFilePath({ agentId: 'main', dataDir: fixture.dataDir }, 'goal');
    const content = '{"version":2,"value":{"goal":{"goalId":"g1","objective":7},"nextId":2}}';
    fs.mkdirSync(nodePath.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    const h = open();
    const warnings: AgentStateWarning[] = [];
    h.app.get(IAgentStateStore).onWarning((w) => warnings.push(w));
    expect((await h.call('GetGoal', {})).output).toBe(NO_GOAL);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^State "goal" of agent main was unreadable \(its "goal" is not a goal\); it starts empty/)]);
    expect((await h.call('CreateGoal', { objective: 'new' })).output).toMatch(/^goal_id: g1\n/);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
  });

  test('main agent only: the four tools are absent in a subagent; accesses are readState/writeState of goal', async () => {
    const main = open();
    const names = ['CreateGoal', 'GetGoal', 'UpdateGoal', 'SetGoalBudget'];
    expect(names.map((n) => main.agent.registry.get(n) !== undefined)).toEqual([true, true, true, true]);
    const child = main.app.createAgent({ id: 'child', cwd: fixture.dir, parentAgentId: 'main' });
    expect(names.map((n) => child.registry.get(n) !== undefined)).toEqual([false, false, false, false]);
    const accesses = await Promise.all(
      names.map(async (n, k) => {
        const e = await main.agent.registry.get(n)!.tool.resolveExecution([{ objective: 'o' }, {}, { status: 'complete' }, { value: 1000, unit: 'tokens' }][k] as never);
        return e.isError ? e.output : e.accesses;
      }),
    );
    expect(accesses).toEqual([
      [{ kind: 'state', key: 'goal', op: 'write' }],
      [{ kind: 'state', key: 'goal', op: 'read' }],
      [{ kind: 'state', key: 'goal', op: 'write' }],
      [{ kind: 'state', key: 'goal', op: 'write' }],
    ]);
  });
});
