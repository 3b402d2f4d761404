import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { IAgentPlanModeService, type ModeChangedEvent } from '../../../src/features/plan/contract';
import { createPlanFeature } from '../../../src/features/plan/planFeature';
import { PLAN_MODE_STATE_KEY, planModeDecision } from '../../../src/features/plan/planGuard';
import { IAgentMcpService } from '../../../src/features/mcp/client/agentMcp';
import type { AgentTool } from '../../../src/di/toolContribution';
import { IAgentStateStore, type AgentStateWarning } from '../../../src/services/agentState/agentState';
import { FileAgentStateStore, agentStateFilePath } from '../../../src/services/agentState/fileAgentStateStore';
import { NO_REVIEWER_MESSAGE } from '../../../src/features/plan/planTools';
import { ToolAccesses } from '../../../src/tool/accesses';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import type { PlanReviewResponse } from '../../../src/services/interaction/interaction';
import { outputText } from '../../../src/tool/contract';
import { type Harness, useAgent } from '../../helpers/agentHarness';
import { FakeHost, approve } from '../../helpers/fakeHost';
import { fixtureServer } from '../../helpers/mcpFixtureServer';

const fx = useAgent({ tempDataDir: true });

/** Every builtin (plan included), a host that approves every call and reviews plans as `review` says (default: approve). */
const approvePlan = (): PlanReviewResponse => ({ decision: 'approve' });

/** `review` null: the host cannot review plans (EnterPlanMode is then inactive unless plan.autoApprove). */
function open(review: (() => PlanReviewResponse) | null = approvePlan, config?: Record<string, unknown>): { h: Harness; host: FakeHost } {
  const host = new FakeHost({ approval: approve, ...(review ? { plan_review: review } : {}) });
  return { h: fx.open({ id: 'main', builtins: true, interactions: host, ...(config ? { config } : {}) }), host };
}

async function enter(h: Harness): Promise<string> {
  const result = await h.call('EnterPlanMode', {});
  expect([result.outcome, result.isError]).toEqual(['executed', false]);
  return (result.structuredContent as { plan_file: string }).plan_file;
}

describe('EnterPlanMode', () => {
  test('creates an empty plan file under <dataDir>/plans, turns the mode on durably, and skips the rest of its batch', async () => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'a\n');
    const { h } = open();
    const changes: ModeChangedEvent[] = [];
    h.agent.container.get(IAgentPlanModeService).onDidChangeMode((e) => changes.push(e));
    const results = await h.agent.executor.execute([
      { id: 'e', name: 'EnterPlanMode', arguments: '{}' },
      { id: 'r', name: 'Read', arguments: JSON.stringify({ path: 'a.txt' }) },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'skipped']);
    expect(outputText(results[1]!.output)).toBe('Skipped: plan mode started; call it again if it is read-only.');
    const planFile = (results[0]!.structuredContent as { plan_file: string }).plan_file;
    expect(planFile).toBe(fs.realpathSync(planFile));
    expect(nodePath.dirname(planFile)).toBe(nodePath.join(fs.realpathSync(fx.dataDir), 'plans'));
    expect(fs.readFileSync(planFile, 'utf8')).toBe('');
    expect(outputText(results[0]!.output)).toContain(`mode: plan\nplan_file: ${planFile}\n`);
    expect(changes).toEqual([{ mode: 'plan', planFile }]);

    const again = await h.call('EnterPlanMode', {});
    expect([again.isError, outputText(again.output)]).toEqual([true, `Plan mode is already active; write the plan to ${planFile} and call ExitPlanMode.`]);

    // An agent created again with the same id and data directory is still in plan mode.
    await h.dispose();
    const { h: reopened } = open();
    expect(await reopened.agent.container.get(IAgentPlanModeService).current()).toEqual({ mode: 'plan', planFile });
    expect((await reopened.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('vetoed');
  });
});

describe('a corrupted mode state file', () => {
  test.each([
    ['not JSON', '{"version":2,"value":{"mode":"pl', 'it is not JSON ('],
    ['JSON that is not a plan mode state', '{"version":2,"value":{"mode":"build","planFile":"/x.md"}}', 'not a plan mode state ({mode: "plan", planFile} or null)); it starts empty'],
    ['a plan mode state without a plan file', '{"version":2,"value":{"mode":"plan"}}', 'not a plan mode state ({mode: "plan", planFile} or null)); it starts empty'],
  ])('(%s): plan mode starts off with a warning naming the key, the file is kept aside, and entering writes a fresh state', async (_what, content, why) => {
    const file = agentStateFilePath({ agentId: 'main', dataDir: fx.dataDir }, 'mode');
    fs.mkdirSync(nodePath.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    const { h } = open();
    const warnings: AgentStateWarning[] = [];
    h.app.get(IAgentStateStore).onWarning((w) => warnings.push(w));
    // The guard waits for the first read: a write right away runs, plan mode being off.
    expect((await h.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('executed');
    expect(await h.agent.container.get(IAgentPlanModeService).current()).toBeUndefined();
    expect(warnings.map((w) => [w.key, w.message])).toEqual([['mode', expect.stringContaining(`State "mode" of agent main was unreadable (${why}`)]]);
    expect(warnings[0]!.message).toContain(`the file was kept as ${warnings[0]!.keptAt}.`);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
    const planFile = await enter(h);
    expect(await h.agent.container.get(IAgentPlanModeService).current()).toEqual({ mode: 'plan', planFile });
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
  });
});

describe('the plan guard, through the executor with an approver that approves everything', () => {
  const cases: readonly [string, string, Record<string, unknown>, 'executed' | 'vetoed'][] = [
    ['Read', 'Read', { path: 'a.txt' }, 'executed'],
    ['Glob', 'Glob', { pattern: '*.txt' }, 'executed'],
    ['Grep', 'Grep', { pattern: 'a' }, 'executed'],
    ['Bash ls', 'Bash', { command: 'ls' }, 'executed'],
    ['Bash git-free cat', 'Bash', { command: 'cat a.txt' }, 'executed'],
    ['Write of another file', 'Write', { path: 'b.txt', content: 'x' }, 'vetoed'],
    ['Edit of another file', 'Edit', { path: 'a.txt', old_string: 'a', new_string: 'b' }, 'vetoed'],
    ['Bash redirection', 'Bash', { command: 'echo x > f' }, 'vetoed'],
    ['Bash sed -i', 'Bash', { command: "sed -i 's/a/b/' a.txt" }, 'vetoed'],
    ['Bash tee', 'Bash', { command: 'echo x | tee f' }, 'vetoed'],
    ['Bash heredoc', 'Bash', { command: 'cat > f <<EOF\nx\nEOF' }, 'vetoed'],
    ['Bash python -c', 'Bash', { command: `python3 -c "open('f','w').write('x')"` }, 'vetoed'],
    ['Bash find -delete', 'Bash', { command: 'find . -name a.txt -delete' }, 'vetoed'],
    ['TodoList write', 'TodoList', { add: [{ title: 'x' }] }, 'vetoed'],
    ['TodoList query', 'TodoList', {}, 'executed'],
    ['Agent with a read-only profile', 'Agent', { description: 'look around', prompt: 'read a.txt', subagent_type: 'explore' }, 'executed'],
    ['Agent with a writing profile', 'Agent', { description: 'change things', prompt: 'edit a.txt', subagent_type: 'general' }, 'vetoed'],
  ];

  test.each(cases)('%s → %s', async (_label, tool, args, expected) => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'a\n');
    const { h, host } = open();
    const planFile = await enter(h);
    if (tool === 'Edit') await h.call('Read', { path: 'a.txt' });
    if (tool === 'Agent') h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ text: 'done' }));
    const approvalsBefore = host.approvals.length;
    const result = await h.call(tool, args);
    expect([result.outcome, result.outcome === 'vetoed' || result.isError === false]).toEqual([expected, true]);
    if (expected === 'vetoed') {
      expect(outputText(result.output)).toMatch(new RegExp(`^Plan mode is read-only: ${tool} would write .+\\. Finish the plan in ${planFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and call ExitPlanMode to leave plan mode\\.$`));
      // Refused before approval: the approver was never asked.
      expect(host.approvals.length).toBe(approvalsBefore);
    }
    // Nothing outside the plan file changed.
    expect(fs.readFileSync(nodePath.join(fx.dir, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.existsSync(nodePath.join(fx.dir, 'f'))).toBe(false);
    expect(fs.existsSync(nodePath.join(fx.dir, 'b.txt'))).toBe(false);
  });

  test('the message names the file a write would touch', async () => {
    const { h } = open();
    const planFile = await enter(h);
    const result = await h.call('Write', { path: 'b.txt', content: 'x' });
    expect(outputText(result.output)).toBe(
      `Plan mode is read-only: Write would write ${nodePath.join(fx.dir, 'b.txt')}. Finish the plan in ${planFile} and call ExitPlanMode to leave plan mode.`,
    );
  });

  test('Write and Edit of the plan file pass, also through a symlink (the canonical path is compared)', async () => {
    const { h } = open();
    const planFile = await enter(h);
    const written = await h.call('Write', { path: planFile, content: '# Plan\n\n1. step\n' });
    expect([written.outcome, written.isError, outputText(written.output)]).toEqual(['executed', false, `Wrote 16 bytes to ${planFile} (replaced the previous 0 bytes).`]);
    expect(fs.readFileSync(planFile, 'utf8')).toBe('# Plan\n\n1. step\n');
    // Outside the workspace (path security refuses a workspace symlink that leads out of it).
    const link = nodePath.join(fx.dataDir, 'plan-link.md');
    fs.symlinkSync(planFile, link);
    const edited = await h.call('Edit', { path: link, old_string: '1. step', new_string: '1. first step' });
    expect([edited.outcome, edited.isError, outputText(edited.output)]).toEqual(['executed', false, expect.any(String)]);
    expect(fs.readFileSync(planFile, 'utf8')).toBe('# Plan\n\n1. first step\n');
  });

  test('AskUserQuestion (state user/question) passes', async () => {
    const host = new FakeHost({ approval: approve, plan_review: approvePlan, question: () => ({ status: 'answered', answers: [{ selected: ['A'] }] }) });
    const h = fx.open({ id: 'main', builtins: true, interactions: host });
    await enter(h);
    const asked = await h.call('AskUserQuestion', { questions: [{ question: 'Which one?', header: 'Pick', options: [{ label: 'A' }, { label: 'B' }] }] });
    expect([asked.outcome, asked.isError]).toEqual(['executed', false]);
  });

  test('a PreToolUse hook that allows a write cannot let it through either', async () => {
    const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });
    const { h } = open(approvePlan, { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `echo '${allow}'` }] }] } });
    await enter(h);
    expect((await h.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('vetoed');
    expect(fs.existsSync(nodePath.join(fx.dir, 'b.txt'))).toBe(false);
  });

  test('outside plan mode nothing is vetoed', async () => {
    const { h } = open();
    expect((await h.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('executed');
    expect((await h.call('Bash', { command: 'echo x > f' })).outcome).toBe('executed');
  });
});

/** The real file store, recording which agent's keys are read. */
class RecordingStateStore extends FileAgentStateStore {
  readonly reads: string[] = [];
  override get(...args: Parameters<FileAgentStateStore['get']>): ReturnType<FileAgentStateStore['get']> {
    this.reads.push(`${args[0].agentId} ${args[1]}`);
    return super.get(...args);
  }
}

describe('a subagent and plan mode', () => {
  test.each([
    ['outside plan mode, a writing child', false, 'general'],
    ['in plan mode, a read-only child', true, 'explore'],
  ])('%s: shares the parent\'s mode, reads no mode state of its own, and has no EnterPlanMode/ExitPlanMode', async (_label, planning, profile) => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'a\n');
    const store = new RecordingStateStore();
    const host = new FakeHost({ approval: approve, plan_review: approvePlan });
    const h = fx.open({ id: 'main', builtins: true, interactions: host, appOverrides: (c) => c.rebind(IAgentStateStore).toConstantValue(store) });
    if (planning) await enter(h);
    const childTools: string[][] = [];
    const runner = new ScriptedSubagentRunner((request) => {
      childTools.push(request.child.modelTools().map((t) => t.name));
      return { batches: [[{ name: 'Read', args: { path: 'a.txt' } }]], text: 'looked' };
    });
    h.app.get(ISubagentRunnerService).bind(runner);
    const result = await h.call('Agent', { description: 'look', prompt: 'read a.txt', subagent_type: profile });
    expect([result.outcome, result.isError]).toEqual(['executed', false]);
    expect(runner.runs[0]!.results[0]![0]!.isError).toBe(false);
    const childId = runner.runs[0]!.request.child.agentId;
    expect(store.reads).toContain(`main ${PLAN_MODE_STATE_KEY}`);
    expect(store.reads.filter((read) => read.startsWith(`${childId} `) && read.endsWith(` ${PLAN_MODE_STATE_KEY}`))).toEqual([]);
    expect(childTools[0]).toContain('Read');
    expect(childTools[0]).not.toContain('EnterPlanMode');
    expect(childTools[0]).not.toContain('ExitPlanMode');
    // The parent's mode is untouched by the child's run.
    expect(await h.agent.container.get(IAgentPlanModeService).current()).toEqual(planning ? expect.objectContaining({ mode: 'plan' }) : undefined);
  });
});

describe('ExitPlanMode', () => {
  async function withPlan(review?: () => PlanReviewResponse, config?: Record<string, unknown>) {
    const opened = open(review, config);
    const planFile = await enter(opened.h);
    fs.writeFileSync(planFile, '# Plan\n\n1. Fix the parser\n');
    return { ...opened, planFile, mode: opened.h.agent.container.get(IAgentPlanModeService) };
  }

  test('approve leaves the mode and returns the plan and the option picked', async () => {
    const { h, host, planFile, mode } = await withPlan(() => ({ decision: 'approve', option: 'Tests first' }));
    const displays: unknown[] = [];
    h.agent.executor.onToolCallStarted((e) => displays.push(e.display));
    const result = await h.call('ExitPlanMode', { options: [{ label: 'Tests first', description: 'Write the failing test.' }, { label: 'Parser first' }] });
    // A UI sees the review coming: the plan file and the options (the text is read when the call runs).
    expect(displays).toEqual([
      { kind: 'plan_review', path: planFile, options: [{ label: 'Tests first', description: 'Write the failing test.' }, { label: 'Parser first', description: '' }] },
    ]);
    expect([result.outcome, result.isError]).toEqual(['executed', false]);
    expect(outputText(result.output)).toBe(
      `Plan approved by the user; plan mode is off. Carry out the plan, as picked: Tests first.\n\n<plan path="${planFile}">\n# Plan\n\n1. Fix the parser\n\n</plan>`,
    );
    expect(host.requests.filter((r) => r.kind === 'plan_review')).toEqual([
      { kind: 'plan_review', toolCallId: expect.any(String), plan: '# Plan\n\n1. Fix the parser\n', path: planFile, options: ['Tests first', 'Parser first'] },
    ]);
    expect(await mode.current()).toBeUndefined();
    expect((await h.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('executed');
  });

  test('revise keeps the mode and returns the feedback', async () => {
    const { h, planFile, mode } = await withPlan(() => ({ decision: 'revise', feedback: 'Add a test step.' }));
    const result = await h.call('ExitPlanMode', {});
    expect([result.isError, result.stopTurn]).toEqual([false, undefined]);
    expect(outputText(result.output)).toBe(`The user asked for changes; plan mode stays on. Change the plan in ${planFile} and call ExitPlanMode again.\n\nFeedback: Add a test step.`);
    expect(await mode.current()).toEqual({ mode: 'plan', planFile });
  });

  test('reject keeps the mode and stops the turn', async () => {
    const { h, planFile, mode } = await withPlan(() => ({ decision: 'reject' }));
    const result = await h.call('ExitPlanMode', {});
    expect([result.isError, result.stopTurn]).toEqual([true, true]);
    expect(outputText(result.output)).toBe('The user rejected the plan; plan mode stays on and the turn ends. Wait for the user.');
    expect(await mode.current()).toEqual({ mode: 'plan', planFile });
    expect((await h.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('vetoed');
  });

  test('with nobody to review the mode stays on and EnterPlanMode is inactive; plan.autoApprove leaves it and says nobody reviewed it', async () => {
    const { h, planFile } = await withPlan(() => ({ decision: 'approve' }));
    await h.dispose();

    // The same agent again, on a host that cannot review plans (e.g. run --yes).
    const { h: unreviewed } = open(null);
    const result = await unreviewed.call('ExitPlanMode', {});
    expect([result.isError, outputText(result.output)]).toEqual([true, NO_REVIEWER_MESSAGE]);
    expect(await unreviewed.agent.container.get(IAgentPlanModeService).current()).toEqual({ mode: 'plan', planFile });
    expect((await unreviewed.call('Write', { path: 'b.txt', content: 'x' })).outcome).toBe('vetoed');
    expect((await unreviewed.call('EnterPlanMode', {})).outcome).toBe('rejected');
    await unreviewed.dispose();

    const auto = open(null, { plan: { autoApprove: true } });
    const exited = await auto.h.call('ExitPlanMode', {});
    expect([exited.isError, outputText(exited.output).split('\n')[0]]).toEqual([false, 'Plan auto-approved, not reviewed by a person; plan mode is off. Carry out the plan.']);
    expect(await auto.h.agent.container.get(IAgentPlanModeService).current()).toBeUndefined();
    expect((await auto.h.call('EnterPlanMode', {})).isError).toBe(false);
  });

  test.each([
    [{ options: [{ label: 'Approve' }] }, 'The option label "Approve" is reserved for the review itself (Approve, Reject, Revise); name the way to carry out the plan instead.'],
    [{ options: [{ label: 'A' }, { label: 'A' }] }, 'The option label "A" is given twice; give each option its own label.'],
  ])('%j is refused in resolve', async (args, message) => {
    const { h } = await withPlan(() => ({ decision: 'approve' }));
    const result = await h.call('ExitPlanMode', args);
    expect([result.isError, outputText(result.output)]).toEqual([true, message]);
  });

  test('an empty plan file, and no plan mode, are errors that say what to do', async () => {
    const { h } = open(() => ({ decision: 'approve' }));
    expect(outputText((await h.call('ExitPlanMode', {})).output)).toBe('Plan mode is not active; call EnterPlanMode first.');
    const planFile = await enter(h);
    expect(outputText((await h.call('ExitPlanMode', {})).output)).toBe(`The plan file ${planFile} is empty; write the plan there and call ExitPlanMode again.`);
  });
});

test('the plan feature alone builds an agent (no other builtin needed)', async () => {
  const h = fx.open({ id: 'solo', features: [createPlanFeature()], interactions: new FakeHost({ plan_review: approvePlan }) });
  expect((await h.call('EnterPlanMode', {})).isError).toBe(false);
});

describe('planModeDecision', () => {
  const plan = '/data/plans/plan-1.md';
  // The guard reads only the tool's annotations and, for MCP tools, its server and planMode.
  const tool = (fields: object = {}) => fields as AgentTool;
  test.each([
    [
      'an MCP tool, whatever it declares',
      { name: 'mcp__gh__get', source: 'mcp' as const, accesses: [ToolAccesses.network()], tool: tool({ server: 'gh', planMode: 'guard' }) },
      { kind: 'veto', refusal: 'mcp__gh__get (an MCP tool) may write anything (set mcpServers.gh.planMode to "allow" if its tools only read)' },
    ],
    [
      'an MCP tool of a server configured planMode "allow", whatever it declares',
      { name: 'mcp__gh__put', source: 'mcp' as const, accesses: ToolAccesses.all(), tool: tool({ server: 'gh', planMode: 'allow' }) },
      { kind: 'run' },
    ],
    [
      'an MCP tool its server annotates readOnlyHint',
      { name: 'mcp__gh__get', source: 'mcp' as const, accesses: [ToolAccesses.network()], tool: tool({ server: 'gh', planMode: 'guard', annotations: { readOnlyHint: true } }) },
      { kind: 'ask', reason: 'plan mode: its MCP server says it only reads (readOnlyHint), which nothing checks; set mcpServers.gh.planMode to "allow" to trust it' },
    ],
    [
      'a host tool that claims planMode "allow" (only MCP tools are asked)',
      { name: 'T', source: 'user' as const, accesses: ToolAccesses.all(), tool: tool({ planMode: 'allow' }) },
      { kind: 'veto', refusal: 'T would write anything (it does not declare a bounded set of reads)' },
    ],
    ['a recursive write over the plans folder', { name: 'T', source: 'builtin' as const, accesses: [ToolAccesses.writeTree('/data/plans')], tool: tool() }, { kind: 'veto', refusal: 'T would write /data/plans' }],
    ['a write of state mode by another tool', { name: 'T', source: 'builtin' as const, accesses: [ToolAccesses.writeState('mode')], tool: tool() }, { kind: 'veto', refusal: 'T would write state "mode"' }],
    ['all', { name: 'T', source: 'user' as const, accesses: ToolAccesses.all(), tool: tool() }, { kind: 'veto', refusal: 'T would write anything (it does not declare a bounded set of reads)' }],
    [
      'the plan file and state user/question',
      { name: 'T', source: 'builtin' as const, accesses: [ToolAccesses.writeFile(plan), ToolAccesses.writeState('user/question'), ToolAccesses.readTree('/')], tool: tool() },
      { kind: 'run' },
    ],
  ])('%s', (_label, call, expected) => {
    expect(planModeDecision(call, plan)).toEqual(expected);
  });
});

describe('MCP tools in plan mode, through the executor with real stdio MCP servers', () => {
  // "trusted" is configured planMode "allow"; "other" is not. On both, echo is annotated readOnlyHint and add is not.
  // An approval rule allows every MCP call, so any question asked is plan mode's.
  type Answer = 'approve' | 'reject';
  const cases: readonly [string, string, Record<string, unknown>, Answer, 'executed' | 'denied' | 'vetoed', number][] = [
    ['a tool of an allow server', 'mcp__trusted__add', { a: 1, b: 2 }, 'reject', 'executed', 0],
    ['a hinted tool of an allow server', 'mcp__trusted__echo', { text: 'hi' }, 'reject', 'executed', 0],
    ['a hinted tool, and the person approves', 'mcp__other__echo', { text: 'hi' }, 'approve', 'executed', 1],
    ['a hinted tool, and the person rejects', 'mcp__other__echo', { text: 'hi' }, 'reject', 'denied', 1],
    ['a tool without the hint', 'mcp__other__add', { a: 1, b: 2 }, 'approve', 'vetoed', 0],
  ];

  test.each(cases)('%s (%s)', async (_label, tool, args, answer, expected, asked) => {
    const host = new FakeHost({ approval: () => ({ decision: answer }), plan_review: approvePlan });
    const h = fx.open({
      id: 'main',
      builtins: true,
      interactions: host,
      config: { approval: { allow: ['mcp__*'] }, mcpServers: { trusted: fixtureServer({}, { planMode: 'allow' }), other: fixtureServer() } },
    });
    await h.agent.get(IAgentMcpService).whenSettled();
    const planFile = await enter(h);
    const result = await h.call(tool, args);
    expect(result.outcome).toBe(expected);
    expect(host.approvals.map((r) => [r.toolName, r.description])).toEqual(
      asked === 0 ? [] : [[tool, `Calling echo on MCP server "other" (plan mode: its MCP server says it only reads (readOnlyHint), which nothing checks; set mcpServers.other.planMode to "allow" to trust it)`]],
    );
    if (expected === 'executed') expect(result.isError).toBe(false);
    if (expected === 'denied') expect(outputText(result.output)).toMatch(/^Tool "mcp__other__echo" was not run: the user rejected it\./);
    if (expected === 'vetoed') {
      expect(outputText(result.output)).toBe(
        `Plan mode is read-only: mcp__other__add (an MCP tool) may write anything (set mcpServers.other.planMode to "allow" if its tools only read). Finish the plan in ${planFile} and call ExitPlanMode to leave plan mode.`,
      );
    }
  });

  test('outside plan mode the approval rule decides alone: no question', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'reject' }), plan_review: approvePlan });
    const h = fx.open({ id: 'main', builtins: true, interactions: host, config: { approval: { allow: ['mcp__*'] }, mcpServers: { other: fixtureServer() } } });
    await h.agent.get(IAgentMcpService).whenSettled();
    expect((await h.call('mcp__other__echo', { text: 'hi' })).outcome).toBe('executed');
    expect((await h.call('mcp__other__add', { a: 1, b: 2 })).outcome).toBe('executed');
    expect(host.approvals).toEqual([]);
  });
});
