import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import type { Runtime } from '../../../src/services/runtime/runtime';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner, type SubagentScript } from '../../../src/tools/agent/scriptedRunner';
import { IAgentTaskService } from '../../../src/tools/task/contract';
import { type Harness, useAgent } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function open(script: SubagentScript): { h: Harness; runner: ScriptedSubagentRunner } {
  const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
  const runner = new ScriptedSubagentRunner(script);
  h.app.get(ISubagentRunnerService).bind(runner);
  return { h, runner };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('background subagents (run_in_background, through the task service)', () => {
  test('returns a task at once; WaitFor sees it complete, TaskList and TaskOutput show it as an agent task', async () => {
    fs.writeFileSync(nodePath.join(fx.dir, 'a.txt'), 'alpha\n');
    const { h } = open({ batches: [[{ name: 'Read', args: { path: 'a.txt' } }]], turnDelayMs: 100, text: 'background answer' });
    const started = await h.call('Agent', { description: 'Look in background', prompt: 'read', subagent_type: 'explore', run_in_background: true });
    const text = outputText(started.output);
    const taskId = /^task_id: (agent-task-[a-z0-9]{8})$/m.exec(text)![1]!;
    const agentId = /^agent_id: (agent-[a-z0-9]{8})$/m.exec(text)![1]!;
    expect(text).toContain('status: running');
    expect(text).toContain(`next_step: WaitFor with task_ids ["${taskId}"]`);
    const waited = await h.call('WaitFor', { task_ids: [taskId], timeout: 30 });
    expect(outputText(waited.output)).toContain(`task_id: ${taskId}\nstatus: completed\ndescription: Look in background\ncommand: Agent explore\nagent_id: ${agentId}`);
    const listed = outputText((await h.call('TaskList', {})).output);
    expect(listed).toContain(`task_id: ${taskId}`);
    const output = outputText((await h.call('TaskOutput', { task_id: taskId })).output);
    expect(output).toContain('[turn 1]');
    expect(output).toContain(`agent_id: ${agentId}\nsubagent_type: explore\nstatus: completed`);
    expect(output).toContain('<agent_result>\nbackground answer\n</agent_result>');
  });

  test('TaskStop aborts a background subagent: the task is killed and the child\'s own tasks with it', async () => {
    const { h, runner } = open({ batches: [[{ name: 'Bash', args: { command: 'sleep 60', run_in_background: true, description: 'sleeper' } }]], turnDelayMs: 50, text: 'never' });
    // The child's second turn waits long enough to be stopped.
    const started = await h.call('Agent', { description: 'Sleep in background', prompt: 'sleep', subagent_type: 'general', run_in_background: true });
    const taskId = /^task_id: (\S+)$/m.exec(outputText(started.output))![1]!;
    await until(() => (runner.runs[0]?.results.length ?? 0) === 1);
    const childTask = /pid: (\d+)/.exec(outputText(runner.runs[0]!.results[0]![0]!.output));
    expect(alive(Number(childTask?.[1]))).toBe(true);
    const stopped = await h.call('TaskStop', { task_id: taskId });
    expect(stopped.isError).toBe(false);
    expect(h.agent.get(IAgentTaskService).get(taskId)!.status).toBe('killed');
    expect(childTask).not.toBeNull();
    await until(() => !alive(Number(childTask![1])));
  });
});

describe('abort propagation', () => {
  test('aborting the parent\'s call aborts the child and kills the processes of its background tasks', async () => {
    const { h, runner } = open({ batches: [[{ name: 'Bash', args: { command: 'sleep 60 & echo $! > pid.txt; wait', run_in_background: true, description: 'sleeper' } }], []], turnDelayMs: 300, text: 'never' });
    const controller = new AbortController();
    const call = h.call('Agent', { description: 'Sleep', prompt: 'sleep', subagent_type: 'general' }, { signal: controller.signal });
    const pidFile = nodePath.join(fx.dir, 'pid.txt');
    await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    expect(alive(pid)).toBe(true);
    controller.abort();
    const result = await call;
    expect(result.outcome).toBe('aborted');
    await until(() => !alive(pid));
    const child = runner.runs[0]!.request.child;
    expect(child.isDisposed).toBe(true);
    await expect(child.execute([{ id: 'x', name: 'Read', arguments: '{}' }])).rejects.toThrow(/has ended/);
  });
});

describe('isolation: worktree', () => {
  function gitRepo(): void {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: fx.dir, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
  }
  const worktrees = () => execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: fx.dir, encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('worktree ')).length;
  const branches = () => execFileSync('git', ['branch', '--list', 'toolhost/*'], { cwd: fx.dir, encoding: 'utf8' }).trim();

  test('offered only in a git repository', () => {
    const { h } = open({ text: 'x' });
    const properties = () => Object.keys((h.agent.modelTools().find((t) => t.name === 'Agent')!.parameters as { properties: object }).properties);
    expect(properties()).not.toContain('isolation');
  });

  test('a child that changes nothing: its worktree is created for the run, then removed with its branch', async () => {
    gitRepo();
    let seenCwd = '';
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
    h.app.get(ISubagentRunnerService).bind(
      new ScriptedSubagentRunner((request) => {
        seenCwd = request.child.cwd;
        return { text: `worktrees: ${worktrees()}` };
      }),
    );
    const result = await h.call('Agent', { description: 'Isolated look', prompt: 'x', subagent_type: 'general', isolation: 'worktree' });
    const text = outputText(result.output);
    expect(text).toContain('worktree: removed (the subagent changed nothing there)');
    expect(text).toContain('worktrees: 2');
    expect(seenCwd).not.toBe(fx.dir);
    expect(fs.existsSync(seenCwd)).toBe(false);
    expect(worktrees()).toBe(1);
    expect(branches()).toBe('');
  });

  test('a child that writes: its writes stay in the worktree, which is kept with its branch', async () => {
    gitRepo();
    const { h } = open({ batches: [[{ name: 'Write', args: { path: 'new.txt', content: 'from the child\n' } }]], text: 'wrote' });
    const result = await h.call('Agent', { description: 'Isolated write', prompt: 'x', subagent_type: 'general', isolation: 'worktree' });
    const text = outputText(result.output);
    const path = /^worktree: (\S+) \(branch (toolhost\/agent-[a-z0-9]{8}), kept/m.exec(text)!;
    expect(fs.readFileSync(nodePath.join(path[1]!, 'new.txt'), 'utf8')).toBe('from the child\n');
    expect(fs.existsSync(nodePath.join(fx.dir, 'new.txt'))).toBe(false);
    expect(branches().replace(/^\+ /, '')).toBe(path[2]);
    execFileSync('git', ['worktree', 'remove', '--force', path[1]!], { cwd: fx.dir });
  });

  test('resume of a child whose worktree was kept continues in that worktree (its files there), not in a new one', async () => {
    gitRepo();
    const seen: { cwd: string; files: string[] }[] = [];
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
    h.app.get(ISubagentRunnerService).bind(
      new ScriptedSubagentRunner((request) => {
        seen.push({ cwd: request.child.cwd, files: fs.readdirSync(request.child.cwd).filter((f) => f !== '.git').sort() });
        return request.resumeFrom === undefined
          ? { batches: [[{ name: 'Write', args: { path: 'first.txt', content: 'first run\n' } }]], text: 'wrote first' }
          : { batches: [[{ name: 'Write', args: { path: 'second.txt', content: 'resumed run\n' } }]], text: 'wrote second' };
      }),
    );
    const first = outputText((await h.call('Agent', { description: 'Isolated write', prompt: 'x', subagent_type: 'general', isolation: 'worktree' })).output);
    const agentId = /^agent_id: (\S+)$/m.exec(first)![1]!;
    const kept = /^worktree: (\S+) \(branch (\S+), kept/m.exec(first)!;
    // Resumed without isolation: the child's work is in its worktree, so it goes on there.
    const resumed = outputText((await h.call('Agent', { description: 'Go on', prompt: 'more', resume: agentId })).output);
    expect(resumed).toContain(`worktree: ${kept[1]} (branch ${kept[2]}, kept`);
    expect(seen.map((s) => s.cwd)).toEqual([kept[1], kept[1]]);
    expect(seen[1]!.files).toEqual(['first.txt']);
    expect(fs.readdirSync(kept[1]!).filter((f) => f !== '.git').sort()).toEqual(['first.txt', 'second.txt']);
    expect(worktrees()).toBe(2);
    expect([fs.existsSync(nodePath.join(fx.dir, 'first.txt')), fs.existsSync(nodePath.join(fx.dir, 'second.txt'))]).toEqual([false, false]);
    execFileSync('git', ['worktree', 'remove', '--force', kept[1]!], { cwd: fx.dir });
  });

  test('resume after its kept worktree was removed by hand: a new worktree on a new run, with a clear result', async () => {
    gitRepo();
    const seen: string[] = [];
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
    h.app.get(ISubagentRunnerService).bind(
      new ScriptedSubagentRunner((request) => {
        seen.push(request.child.cwd);
        return request.resumeFrom === undefined ? { batches: [[{ name: 'Write', args: { path: 'first.txt', content: '1\n' } }]], text: 'wrote' } : { text: 'looked' };
      }),
    );
    const first = outputText((await h.call('Agent', { description: 'Isolated write', prompt: 'x', subagent_type: 'general', isolation: 'worktree' })).output);
    const agentId = /^agent_id: (\S+)$/m.exec(first)![1]!;
    const kept = /^worktree: (\S+) \(branch (\S+), kept/m.exec(first)!;
    execFileSync('git', ['worktree', 'remove', '--force', kept[1]!], { cwd: fx.dir });
    execFileSync('git', ['branch', '-D', kept[2]!], { cwd: fx.dir });
    const resumed = outputText((await h.call('Agent', { description: 'Go on', prompt: 'more', resume: agentId })).output);
    expect(resumed).toContain('status: completed');
    expect(resumed).toContain('worktree: removed (the subagent changed nothing there)');
    expect(seen).toHaveLength(2);
    expect(worktrees()).toBe(1);
    expect(branches()).toBe('');
  });

  test('the git commands run through the agent\'s runtime (its process.exec), not around it', async () => {
    gitRepo();
    const base = createLocalRuntime();
    const commands: string[] = [];
    const runtime: Runtime = {
      ...base,
      name: 'recording',
      process: {
        exec: (file, args, options) => {
          // `git -C <dir> <command> …`: the command and its first argument.
          commands.push([file, ...(args[0] === '-C' ? args.slice(2, 4) : args.slice(0, 2))].join(' '));
          return base.process!.exec(file, args, options);
        },
        startShell: (options) => base.process!.startShell(options),
      },
    };
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll(), runtime });
    h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ text: 'nothing' }));
    const result = outputText((await h.call('Agent', { description: 'Isolated look', prompt: 'x', subagent_type: 'general', isolation: 'worktree' })).output);
    expect(result).toContain('worktree: removed');
    expect(commands.filter((c) => c.startsWith('git ')).map((c) => c.replace(/ [0-9a-f]{40}\.\.HEAD$/, ' <base>..HEAD'))).toEqual([
      'git rev-parse HEAD',
      'git worktree add',
      'git status --porcelain',
      'git rev-list <base>..HEAD',
      'git worktree remove',
      'git branch -D',
    ]);
  });
});
