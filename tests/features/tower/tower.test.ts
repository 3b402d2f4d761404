import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { TowerStateStore } from '../../../src/features/tower/towerStateStore';
import { TOWER_FLAG } from '../../../src/features/tower/contract';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService, type SubagentRunRequest } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner, type SubagentScript } from '../../../src/tools/agent/scriptedRunner';
import { callTool, type Harness, useAgent } from '../../helpers/agentHarness';
import { FakeHost } from '../../helpers/fakeHost';
import { git, initRepo, openTower, out, readState, until } from './towerFixtures';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';

const fx = useAgent({ tempDataDir: true });
function open(script?: SubagentScript | ((request: SubagentRunRequest) => SubagentScript), env: Record<string, string> = { [TOWER_FLAG]: '1' }): { h: Harness; runner: ScriptedSubagentRunner } {
  return openTower(fx, script, { env });
}
const state = () => readState(fx.dir);

describe('Tower (experimental)', () => {
  test('without the flag no Tower tool is offered; with it, all eleven', async () => {
    initRepo(fx.dir);
    const off = fx.open({ id: 'main', builtins: true, env: {} });
    expect(off.agent.modelTools().map((t) => t.name).filter((n) => n.startsWith('Tower'))).toEqual([]);
    const on = fx.open({ id: 'main2', builtins: true, env: { [TOWER_FLAG]: '1' } });
    expect(on.agent.modelTools().map((t) => t.name).filter((n) => n.startsWith('Tower')).sort()).toEqual(
      ['TowerFinding', 'TowerInbox', 'TowerInit', 'TowerMerge', 'TowerMission', 'TowerPlan', 'TowerReview', 'TowerSend', 'TowerSpawn', 'TowerStatus', 'TowerTeardown'],
    );
  });

  test('TowerInit is idempotent; the other tools refuse before it; state.json is versioned', async () => {
    const { h } = open();
    expect(await out(h, 'TowerStatus', {})).toEqual({ text: 'tower mode is not active — run TowerInit first', isError: true });
    const first = await out(h, 'TowerInit', {});
    expect(first.text).toContain('status: initialized\nbase_branch: main');
    expect((await out(h, 'TowerInit', {})).text).toContain('status: already-initialized');
    expect(state()).toMatchObject({ version: 1, active: true, baseBranch: 'main', owner: 'main' });
    // .tower/ stays out of git status
    expect(git(fx.dir, 'status', '--porcelain')).toBe('');
  });

  test('a workspace owned by a live main agent is refused to another; once that agent ended, the other adopts it', async () => {
    const { h } = open();
    await out(h, 'TowerInit', {});
    const other = h.app.createAgent({ id: 'other', cwd: fx.dir, dataDir: nodePath.join(fx.dir, '.other-data') });
    const init = () => callTool(other, 'TowerInit', {});
    expect(outputText((await init()).output)).toBe(
      `tower workspace is owned by a live session (agent main, pid ${process.pid} on ${os.hostname()}, heartbeat 0 s ago); run Tower tools from that session, or let it run TowerTeardown first.`,
    );
    // Nor may it plan, spawn or merge in that workspace without taking it.
    expect(outputText((await callTool(other, 'TowerPlan', { missions: [{ title: 'X', scope: ['src/x/**'] }] })).output)).toMatch(/^tower workspace is coordinated by a live session \(agent main, pid \d+/);
    await h.agent.dispose();
    const adopted = await init();
    expect(outputText(adopted.output)).toContain('status: initialized');
    expect(state().owner).toBe('other');
    await other.dispose();
  });

  test('TowerPlan assigns ids, branches and worktrees; overlapping build scopes (glob semantics) and unknown deps are refused', async () => {
    const { h } = open();
    await out(h, 'TowerInit', {});
    const overlap = await out(h, 'TowerPlan', { missions: [{ title: 'A', scope: ['src/**'] }, { title: 'B', scope: ['src/parser/*.ts'] }] });
    expect(overlap).toEqual({ isError: true, text: 'build missions "A" and "B" overlap (both cover src/parser/p.ts); give each build mission a disjoint scope, or make one a survey.' });
    // No tracked file yet, but a glob covering the other's folder still overlaps.
    expect((await out(h, 'TowerPlan', { missions: [{ title: 'A', scope: ['lib/**'] }, { title: 'B', scope: ['lib/new/x.ts'] }] })).text).toContain('overlap (both cover lib/new/x.ts)');
    expect((await out(h, 'TowerPlan', { missions: [{ title: 'All', scope: ['**'] }] })).text).toContain('is the whole repository');
    // picomatch backtracks on many stars: this scope took 16 s on one 200-character name.
    expect((await out(h, 'TowerPlan', { missions: [{ title: 'A', scope: ['src/*a*a*a*a*b/**'] }] })).text).toBe(
      'mission "A": scope "src/*a*a*a*a*b/**" has too many wildcards (at most 3 "*" in one path segment and 3 "**" segments; more can take minutes to match); name the folders or files instead (e.g. "src/parser/**").',
    );
    expect((await out(h, 'TowerPlan', { missions: [{ title: 'A', scope: ['src/**'], deps: ['M9'] }] })).text).toContain('dependency M9 is not a mission');
    const planned = await out(h, 'TowerPlan', { missions: [{ title: 'Parser CRLF', scope: ['src/parser/**'], tasks: ['handle CRLF', 'test'] }, { title: 'Docs survey', scope: ['src/**'], kind: 'survey' }] });
    expect(planned.isError).toBe(false);
    expect(planned.text).toContain('| M1 | Parser CRLF | build | planned | feat/parser-crlf | wt-1 | src/parser/** |');
    expect(planned.text).toContain('| M2 | Docs survey | survey | planned | feat/docs-survey | wt-2 | src/** |');
    expect(state().missions[0].tasks).toEqual([{ id: 'T1', text: 'handle CRLF', done: false }, { id: 'T2', text: 'test', done: false }]);
  });

  test('a worker spawned through the subagent runner gets the worktree, sends to the tower, ticks its task by id; the merge gate holds until a clean review of the tip', async () => {
    const { h, runner } = open((request: SubagentRunRequest) => ({
      batches: [
        [{ name: 'Read', args: { path: nodePath.join(request.child.cwd, 'src', 'parser', 'p.ts') } }],
        [{ name: 'Write', args: { path: nodePath.join(request.child.cwd, 'src', 'parser', 'p.ts'), content: 'export const p = 2;\n' } }],
        [{ name: 'TowerMission', args: { id: 'M1', task_done: 'T1' } }],
        [{ name: 'TowerSend', args: { to: 'tower', subject: 'M1 done', body: 'p is 2 now' } }],
      ],
      text: 'worker done',
    }));
    await out(h, 'TowerInit', {});
    await out(h, 'TowerPlan', { missions: [{ title: 'Parser', scope: ['src/parser/**'], tasks: ['bump p contains T2 text', 'T1'] }] });
    const spawned = await out(h, 'TowerSpawn', { name: 'w1', kind: 'worker', mission_id: 'M1' });
    expect(spawned.isError).toBe(false);
    const worktree = nodePath.join(fx.dir, '.tower', 'worktrees', 'wt-1');
    expect(spawned.text).toContain(`name: w1\nkind: worker\n`);
    expect(spawned.text).toContain(`status: running\nmission: M1\nbranch: feat/parser\nworktree: ${fs.realpathSync(worktree)}`);
    expect((await out(h, 'TowerSpawn', { name: 'w1', kind: 'worker', mission_id: 'M1' })).text).toContain('w1 is already on the roster');
    const taskId = /^task_id: (\S+)$/m.exec(spawned.text)![1]!;
    await h.call('WaitFor', { task_ids: [taskId], timeout: 30 });
    const run = runner.runs[0]!;
    expect(run.results.flat().map((r) => (r.isError === true ? outputText(r.output) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(run.request.prompt).toContain('Mission M1: Parser (build) on branch feat/parser.');
    // Ticked by id: T1 is the first task, even though the second one's text is "T1".
    expect(state().missions[0].tasks.map((t: { done: boolean }) => t.done)).toEqual([true, false]);
    const inbox = await out(h, 'TowerInbox', {});
    expect(inbox.text).toContain('from: w1\nto: tower\nsubject: M1 done');
    expect(inbox.text).toContain('p is 2 now');
    await until(() => state().roster[0].status === 'completed');

    git(worktree, 'commit', '-q', '-am', 'p=2');
    expect((await out(h, 'TowerMerge', { branch: 'feat/parser' })).text).toBe('merge blocked: feat/parser has no review; spawn a reviewer (TowerSpawn kind "reviewer", review_target "feat/parser").');
    expect((await out(h, 'TowerReview', { target: 'feat/parser', status: 'clean', merge: 'merge', findings: 'none', decision: 'ok' })).isError).toBe(false);
    // A commit after the review: the review is stale.
    fs.writeFileSync(nodePath.join(worktree, 'src', 'parser', 'q.ts'), 'q\n');
    git(worktree, 'add', '.');
    git(worktree, 'commit', '-q', '-m', 'q');
    expect((await out(h, 'TowerMerge', { branch: 'feat/parser' })).text).toMatch(/^merge blocked: feat\/parser moved since its review/);
    // Out of scope file, reviewed at the tip: the scope gate.
    fs.writeFileSync(nodePath.join(worktree, 'docs', 'a.md'), 'changed\n');
    git(worktree, 'commit', '-q', '-am', 'docs');
    await out(h, 'TowerReview', { target: 'feat/parser', status: 'clean', merge: 'merge', findings: 'none', decision: 'ok' });
    expect((await out(h, 'TowerMerge', { branch: 'feat/parser' })).text).toContain('changes files outside the scope of M1 (src/parser/**): docs/a.md');
    git(worktree, 'revert', '--no-edit', 'HEAD');
    await out(h, 'TowerReview', { target: 'feat/parser', status: 'p1-2items', merge: 'hold', findings: 'two', decision: 'fix' });
    expect((await out(h, 'TowerMerge', { branch: 'feat/parser' })).text).toContain('(round 3) is p1-2items, not clean');
    await out(h, 'TowerReview', { target: 'feat/parser', status: 'clean', merge: 'merge', findings: 'none', decision: 'ok' });
    const merged = await out(h, 'TowerMerge', { branch: 'feat/parser' });
    expect(merged).toEqual({ isError: false, text: 'merged: feat/parser\nmission: M1\nfiles: 2' });
    expect(fs.readFileSync(nodePath.join(fx.dir, 'src', 'parser', 'p.ts'), 'utf8')).toBe('export const p = 2;\n');
    expect(git(fx.dir, 'log', '-1', '--format=%s')).toBe('tower: merge feat/parser (M1 Parser)');
    expect((await out(h, 'TowerStatus', {})).text).toContain('next_step: every mission is merged; run TowerTeardown.');
    const down = await out(h, 'TowerTeardown', {});
    expect(down.text).toContain('removed: wt-1');
    expect(fs.existsSync(worktree)).toBe(false);
    expect(fs.existsSync(nodePath.join(fx.dir, '.tower', 'comms', 'state.json'))).toBe(true);
    expect((await out(h, 'TowerStatus', {})).isError).toBe(true);
  });

  test('workers run with the parent policy: TowerSpawn asks for approval, and a denied spawn starts nothing', async () => {
    initRepo(fx.dir);
    const host = new FakeHost({ approval: () => ({ decision: 'reject' }) });
    const h = fx.open({ id: 'main', builtins: true, env: { [TOWER_FLAG]: '1' }, interactions: host });
    h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ text: 'x' }));
    await out(h, 'TowerInit', {});
    await out(h, 'TowerPlan', { missions: [{ title: 'P', scope: ['src/parser/**'] }] });
    expect((await out(h, 'TowerSpawn', { name: 'w1', kind: 'worker', mission_id: 'M1' })).isError).toBe(true);
    expect(host.approvals.map((r) => r.toolName)).toEqual(['TowerSpawn']);
    expect(state().roster).toEqual([]);
  });

  test('TowerSend refuses yourself and unknown names, listing the known ones; each message is its own file', async () => {
    const { h } = open();
    await out(h, 'TowerInit', {});
    expect((await out(h, 'TowerSend', { to: 'tower', subject: 's', body: 'b' })).text).toContain('you are tower; send to someone else');
    expect((await out(h, 'TowerSend', { to: 'bob', subject: 's', body: 'b' })).text).toBe('"bob" is not on the roster; send to one of: all.');
    await Promise.all(Array.from({ length: 20 }, (_, i) => out(h, 'TowerSend', { to: 'all', subject: 'same subject', body: `b${i}` })));
    expect(fs.readdirSync(nodePath.join(fx.dir, '.tower', 'comms', 'inbox'))).toHaveLength(20);
    expect((await out(h, 'TowerInbox', { limit: 3 })).text).toContain('messages: 3');
  });
});

describe('TowerStateStore', () => {
  test('many concurrent updates through one store all land, versions count them', async () => {
    const store = new TowerStateStore();
    const file = nodePath.join(fx.dir, 'state.json');
    const fsApi = createLocalRuntime().fs!;
    const bump = () =>
      store.update(fsApi, file, (s) => ({
        state: { active: true, baseBranch: 'main', owner: 'x', missions: [], reviews: [], nextWorktree: (s?.nextWorktree ?? 0) + 1, roster: s?.roster ?? [] },
        result: undefined,
      }));
    await Promise.all(Array.from({ length: 300 }, bump));
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ version: 300, nextWorktree: 300 });
  });

  test('two stores (as two processes) racing on one file lose no update: the lock file serializes them', async () => {
    const stores = [new TowerStateStore(), new TowerStateStore()];
    const file = nodePath.join(fx.dir, 'state.json');
    const fsApi = createLocalRuntime().fs!;
    const bump = (store: TowerStateStore) =>
      store.update(fsApi, file, (s) => {
        return { state: { active: true, baseBranch: 'main', owner: 'x', missions: [], reviews: [], nextWorktree: (s?.nextWorktree ?? 0) + 1, roster: s?.roster ?? [] }, result: undefined };
      });
    await Promise.all(Array.from({ length: 100 }, (_, i) => bump(stores[i % 2]!)));
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved.nextWorktree).toBe(100);
    expect(saved.version).toBe(100);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
