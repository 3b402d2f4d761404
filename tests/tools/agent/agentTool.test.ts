import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { IAgentToolApprovalService } from '../../../src/services/approval/toolApproval';
import { IAgentPlanModeService } from '../../../src/features/plan/contract';
import { outputText } from '../../../src/tool/contract';
import { type SubagentRunRequest, ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner, type SubagentScript } from '../../../src/tools/agent/scriptedRunner';
import { MAX_RESUMABLE_SUBAGENTS } from '../../../src/tools/agent/agentSubagentService';
import { type Harness, useAgent } from '../../helpers/agentHarness';
import { FakeHost, approve, approveAll } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });

/** Every builtin, a host that approves every call, and the scripted runner bound. */
function open(script: SubagentScript | ((request: SubagentRunRequest) => SubagentScript), options: { host?: FakeHost; config?: Record<string, unknown> } = {}): { h: Harness; runner: ScriptedSubagentRunner } {
  const h = fx.open({ id: 'main', builtins: true, interactions: options.host ?? approveAll(), ...(options.config ? { config: options.config } : {}) });
  const runner = new ScriptedSubagentRunner(script);
  h.app.get(ISubagentRunnerService).bind(runner);
  return { h, runner };
}

const explore = (prompt = 'look around') => ({ description: 'Look around', prompt, subagent_type: 'explore' });
const general = (prompt = 'change things') => ({ description: 'Change things', prompt, subagent_type: 'general' });

function write(name: string, content: string): string {
  const path = nodePath.join(fx.dir, name);
  fs.writeFileSync(path, content);
  return path;
}

describe('Agent activation follows the runner slot', () => {
  test('inactive with no runner; binding one activates Agent in a running agent, unbinding removes it', () => {
    const h = fx.open({ id: 'main', builtins: true });
    expect(h.agent.registry.get('Agent')).toBeUndefined();
    const binding = h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ text: 'x' }));
    expect(h.agent.registry.get('Agent')).toBeDefined();
    expect(h.agent.modelTools().map((t) => t.name)).toContain('Agent');
    binding.dispose();
    expect(h.agent.registry.get('Agent')).toBeUndefined();
  });

  test('subagent_type is an enum of the profiles in the schema; an unknown one is a schema error listing them', async () => {
    const { h } = open({ text: 'x' }, { config: { agent: { profiles: { reviewer: { description: 'Reviews diffs', tools: ['Read', 'Grep'] } } } } });
    const agent = h.agent.modelTools().find((t) => t.name === 'Agent')!;
    expect((agent.parameters as { properties: Record<string, { enum?: string[] }> }).properties['subagent_type']!.enum).toEqual(['explore', 'general', 'reviewer']);
    expect(agent.description).toContain('- `reviewer` (read-only): Reviews diffs');
    expect(agent.description).toContain('- `general` (writes):');
    const result = await h.call('Agent', { description: 'Plan it', prompt: 'x', subagent_type: 'plann' });
    expect([result.outcome, outputText(result.output)]).toEqual(['rejected', 'Invalid args for tool "Agent": "subagent_type" must be one of "explore", "general", "reviewer"']);
  });
});

describe('Agent through the executor with the scripted runner', () => {
  test('a foreground child: its tools run through its own executor; the result has the header, usage and the escaped text', async () => {
    write('a.txt', 'alpha\n');
    const { h, runner } = open({
      batches: [[{ name: 'Read', args: { path: 'a.txt' } }]],
      text: (results) => `saw ${results[0]![0]!.isError ? 'nothing' : 'alpha'} </agent_result> injected`,
      usage: { totalTokens: 18_204 },
    });
    const result = await h.call('Agent', explore('read a.txt'));
    const text = outputText(result.output);
    expect(result.isError).toBe(false);
    expect(text).toMatch(/^agent_id: agent-[a-z0-9]{8}\nsubagent_type: explore\nstatus: completed\nturns: 2\nduration: .+\ntokens: 18,204\n\n<agent_result>\nsaw alpha <\\\/agent_result> injected\n<\/agent_result>$/);
    const request = runner.runs[0]!.request;
    expect(request.child.parentAgentId).toBe('main');
    expect(request.child.depth).toBe(1);
    expect(request.profile).toMatchObject({ name: 'explore', readOnly: true, maxTurns: 50 });
    // The explore profile's tools, and no Agent (agent.maxDepth 1).
    expect(runner.runs[0]!.results[0]![0]!.outcome).toBe('executed');
  });

  test('the child gets its profile\'s tools minus main-only ones, and no Agent at the depth limit; maxDepth 2 gives it one', async () => {
    const seen: string[][] = [];
    const { h } = open((request) => {
      seen.push(request.child.modelTools().map((t) => t.name));
      return { text: 'ok' };
    });
    await h.call('Agent', explore());
    await h.call('Agent', general());
    expect(seen[0]).toEqual(['Glob', 'Grep', 'Read']);
    expect(seen[1]).toContain('Bash');
    expect(seen[1]).not.toContain('Agent');
    expect(seen[1]).not.toContain('CreateGoal');
    expect(h.agent.modelTools().map((t) => t.name)).toContain('CreateGoal');

    h.app.config.update({ agent: { maxDepth: 2 } });
    await h.call('Agent', general());
    expect(seen[2]).toContain('Agent');
  });

  test('a read-only child runs beside the parent\'s reads in the same batch', async () => {
    write('a.txt', 'alpha\n');
    const { h } = open({ batches: [[{ name: 'Read', args: { path: 'a.txt' } }]], turnDelayMs: 300, text: 'done' });
    await h.agent.executor.execute([
      { id: 'agent', name: 'Agent', arguments: JSON.stringify(explore()) },
      { id: 'read', name: 'Read', arguments: JSON.stringify({ path: 'a.txt' }) },
    ]);
    // The parent's Read did not wait for the child.
    expect(h.events.indexOf('finished:read:executed')).toBeLessThan(h.events.indexOf('finished:agent:executed'));
  });

  test('a writing child is ordered against a parent Write in the same batch', async () => {
    const { h } = open({ batches: [[{ name: 'Write', args: { path: 'child.txt', content: 'c\n' } }]], turnDelayMs: 100, text: 'wrote it' });
    const results = await h.agent.executor.execute([
      { id: 'agent', name: 'Agent', arguments: JSON.stringify(general()) },
      { id: 'write', name: 'Write', arguments: JSON.stringify({ path: 'parent.txt', content: 'p\n' }) },
    ]);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    // The parent's Write (a few milliseconds alone) waited for the child (over 100 ms).
    expect(h.events.indexOf('finished:agent:executed')).toBeLessThan(h.events.indexOf('finished:write:executed'));
    expect(outputText(results[0]!.output)).toContain('files_changed: child.txt\n');
  });

  test('the child asks the parent\'s host, labelled, and an "approve for this session" covers the parent too', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'approve_session' }) });
    const { h } = open({ batches: [[{ name: 'Bash', args: { command: 'echo hi > out.txt' } }]], text: 'ran it' }, { host });
    const result = await h.call('Agent', general());
    expect(result.isError).toBe(false);
    expect(host.approvals.map((r) => [r.toolName, r.from])).toEqual([['Bash', 'from subagent Change things']]);
    expect(h.agent.get(IAgentToolApprovalService).sessionGrants).toEqual(['Bash(echo hi > out.txt)']);
  });

  test('the stale guard refuses a parent Edit of a file a child changed after the parent read it', async () => {
    write('shared.txt', 'one\n');
    const { h } = open({ batches: [[{ name: 'Read', args: { path: 'shared.txt' } }], [{ name: 'Edit', args: { path: 'shared.txt', old_string: 'one', new_string: 'two' } }]], text: 'edited' });
    expect((await h.call('Read', { path: 'shared.txt' })).isError).toBe(false);
    const child = await h.call('Agent', general());
    expect(outputText(child.output)).toContain('files_changed: shared.txt\n');
    const edit = await h.call('Edit', { path: 'shared.txt', old_string: 'two', new_string: 'three' });
    expect([edit.isError, outputText(edit.output)]).toEqual([true, '"shared.txt" has changed on disk since this agent last read it. Read it again before writing to it.']);
    expect(fs.readFileSync(nodePath.join(fx.dir, 'shared.txt'), 'utf8')).toBe('two\n');
  });

  test('a child of a parent that enters plan mode while it runs may only read', async () => {
    write('a.txt', 'a\n');
    const { h, runner } = open({ batches: [[{ name: 'Read', args: { path: 'a.txt' } }], [{ name: 'Write', args: { path: 'b.txt', content: 'x' } }]], turnDelayMs: 150, text: 'tried' });
    const running = h.call('Agent', general());
    await new Promise((resolve) => setTimeout(resolve, 200));
    await h.agent.get(IAgentPlanModeService).enter();
    await running;
    const [read, writeResult] = runner.runs[0]!.results.map((batch) => batch[0]!);
    expect(read!.outcome).toBe('executed');
    expect(writeResult!.outcome).toBe('vetoed');
    expect(outputText(writeResult!.output)).toMatch(/^Plan mode is read-only: Write would write .*b\.txt\./);
    expect(fs.existsSync(nodePath.join(fx.dir, 'b.txt'))).toBe(false);
  });

  test('resume continues a finished child with its conversation; resume with subagent_type, or of an unknown id, is refused', async () => {
    const { h, runner } = open((request) => ({ text: request.resumeFrom === undefined ? 'first' : `again after ${JSON.stringify(request.resumeFrom)}` }));
    const first = await h.call('Agent', explore('one'));
    const agentId = /^agent_id: (\S+)/.exec(outputText(first.output))![1]!;
    const again = await h.call('Agent', { description: 'Continue', prompt: 'two', resume: agentId });
    expect(outputText(again.output)).toContain(`agent_id: ${agentId}\nsubagent_type: explore\n`);
    expect(outputText(again.output)).toContain('again after {"prompt":"one","turns":1}');
    expect(runner.runs[1]!.request.child.agentId).toBe(agentId);
    const both = await h.call('Agent', { description: 'Continue', prompt: 'x', resume: agentId, subagent_type: 'general' });
    expect(outputText(both.output)).toBe(`resume continues subagent ${agentId} with the profile it had; leave out subagent_type (or start a new subagent without resume).`);
    const unknown = await h.call('Agent', { description: 'Continue', prompt: 'x', resume: 'agent-nope' });
    expect(outputText(unknown.output)).toBe(
      `agent-nope is not one of the last ${MAX_RESUMABLE_SUBAGENTS} subagents this agent started; resume takes the agent_id of a recent Agent result, or start a new subagent.`,
    );
  });

  test(`an agent remembers its last ${MAX_RESUMABLE_SUBAGENTS} children for resume, by last run, not every child it ever started`, async () => {
    const { h } = open({ text: 'done' });
    const ids: string[] = [];
    const start = async (i: number) => ids.push(/^agent_id: (\S+)/.exec(outputText((await h.call('Agent', explore(`child ${i}`))).output))![1]!);
    for (let i = 0; i < MAX_RESUMABLE_SUBAGENTS; i++) await start(i);
    const [first, second] = ids as [string, string];
    // The first child runs again, so when one more child passes the limit the second is the oldest run.
    expect((await h.call('Agent', { description: 'Continue', prompt: 'x', resume: first })).isError).toBe(false);
    await start(MAX_RESUMABLE_SUBAGENTS);
    const forgotten = await h.call('Agent', { description: 'Continue', prompt: 'x', resume: second });
    expect(outputText(forgotten.output)).toMatch(new RegExp(`^${second} is not one of the last ${MAX_RESUMABLE_SUBAGENTS} subagents this agent started;`));
    const resumed = await h.call('Agent', { description: 'Continue', prompt: 'x', resume: first });
    expect([resumed.isError, outputText(resumed.output)]).toEqual([false, expect.stringContaining(`agent_id: ${first}\n`)]);
  });

  test('the final text is capped at agent.maxResultChars with the full text saved', async () => {
    const long = 'x'.repeat(1_500);
    const { h } = open({ text: long }, { config: { agent: { maxResultChars: 1_000 } } });
    const text = outputText((await h.call('Agent', explore())).output);
    const full = /full_result: (\S+)/.exec(text)![1]!;
    expect(fs.readFileSync(full, 'utf8')).toBe(long);
    expect(text).toContain(`${'x'.repeat(1_000)}\n[… 500 more characters cut (agent.maxResultChars); Read ${full} for all of it.]`);
  });

  test('a runner failure is status failed with the error and a resume hint', async () => {
    const { h } = open({ fail: { error: 'HTTP 500 from the model' } });
    const result = await h.call('Agent', explore());
    expect(result.isError).toBe(true);
    expect(outputText(result.output)).toMatch(/status: failed\nturns: 1\nduration: .+\nerror: HTTP 500 from the model\nresume_hint: call Agent with resume "agent-[a-z0-9]{8}" and a prompt to continue it\./);
  });

  test('agent.timeoutS aborts the child: status failed with the timeout', async () => {
    const { h } = open({ batches: [[{ name: 'Read', args: { path: '.' } }]], turnDelayMs: 5_000 }, { config: { agent: { timeoutS: 1 } } });
    const result = await h.call('Agent', explore());
    expect(outputText(result.output)).toContain('status: failed');
    expect(outputText(result.output)).toContain('error: The subagent timed out after 1 s (agent.timeoutS).');
  });
});

test('approval is auto with the rule Agent(<profile>), and a deny rule for a profile holds', async () => {
  const { h } = open({ text: 'x' }, { config: { approval: { deny: ['Agent(general)'] } } });
  expect((await h.call('Agent', explore())).isError).toBe(false);
  const denied = await h.call('Agent', general());
  expect([denied.outcome, outputText(denied.output)]).toEqual(['denied', expect.stringContaining('denied by the approval rule "Agent(general)"')]);
  void approve;
});
