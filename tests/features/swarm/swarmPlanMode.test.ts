import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { useAgent } from '../../helpers/agentHarness';
import { FakeHost, approve } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });

// AgentSwarm in plan mode is held as Agent is: a read-only profile runs, a writing one is vetoed
// before approval (the host is never asked), and nothing in the workspace changes.
describe('AgentSwarm in plan mode, beside Agent, through the executor with a host that approves everything', () => {
  const swarm = (profile: string) => ({ description: 'look at both', subagent_type: profile, prompt_template: 'look at {{item}}', items: ['a.txt', 'b.txt'] });
  const cases: readonly [string, 'executed' | 'vetoed', string, Record<string, unknown>][] = [
    ['Agent, read-only profile', 'executed', 'Agent', { description: 'look around', prompt: 'read a.txt', subagent_type: 'explore' }],
    ['AgentSwarm, read-only profile', 'executed', 'AgentSwarm', swarm('explore')],
    ['Agent, writing profile', 'vetoed', 'Agent', { description: 'change things', prompt: 'edit a.txt', subagent_type: 'general' }],
    ['AgentSwarm, writing profile', 'vetoed', 'AgentSwarm', swarm('general')],
    ['AgentSwarm, writing profile in worktrees', 'vetoed', 'AgentSwarm', { ...swarm('general'), isolation: 'worktree' }],
  ];

  test.each(cases)('%s → %s', async (_label, expected, tool, args) => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'a\n');
    fs.writeFileSync(nodePath.join(fx.dir, 'b.txt'), 'b\n');
    if (args.isolation === 'worktree') {
      fs.mkdirSync(nodePath.join(fx.dir, '.git'));
    }
    const host = new FakeHost({ approval: approve, plan_review: () => ({ decision: 'approve' }) });
    const h = fx.open({ id: 'main', builtins: true, interactions: host });
    const entered = await h.call('EnterPlanMode', {});
    const planFile = (entered.structuredContent as { plan_file: string }).plan_file;
    const runner = new ScriptedSubagentRunner({ batches: [[{ name: 'Read', args: { path: 'a.txt' } }]], text: 'looked' });
    h.app.get(ISubagentRunnerService).bind(runner);
    const approvalsBefore = host.approvals.length;
    const result = await h.call(tool, args);
    expect(result.outcome).toBe(expected);
    if (expected === 'executed') {
      expect(result.isError).toBe(false);
      // The children ran, and could read.
      expect(runner.runs.length).toBe(tool === 'AgentSwarm' ? 2 : 1);
      for (const run of runner.runs) expect(run.results[0]![0]!.isError).toBe(false);
    } else {
      expect(outputText(result.output)).toMatch(new RegExp(`^Plan mode is read-only: ${tool} would write .+\\. Finish the plan in ${planFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and call ExitPlanMode to leave plan mode\\.$`));
      expect(host.approvals.length).toBe(approvalsBefore);
      expect(runner.runs).toHaveLength(0);
    }
    expect([fs.readFileSync(nodePath.join(fx.dir, 'a.txt'), 'utf8'), fs.readFileSync(nodePath.join(fx.dir, 'b.txt'), 'utf8')]).toEqual(['a\n', 'b\n']);
  });
});
