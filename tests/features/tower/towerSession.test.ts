import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { TOWER_FLAG, TOWER_MAX_BUDGET, TOWER_SPAWN_PAUSE_MS } from '../../../src/features/tower/contract';
import { TOWER_LEASE_HEARTBEAT_MS, TOWER_LEASE_STALE_MS, type TowerLeaseRecord } from '../../../src/features/tower/towerLease';
import { IClock } from '../../../src/services/clock/clock';
import type { SubagentRunRequest } from '../../../src/tools/agent/contract';
import { IAgentTaskService } from '../../../src/tools/task/contract';
import { useAgent } from '../../helpers/agentHarness';
import { FakeClock } from '../../helpers/fakeClock';
import { makeTempDir, removeDir } from '../../helpers/tempDir';
import { git, openTower, out, readState, towerFile, until } from './towerFixtures';

const fx = useAgent({ tempDataDir: true });

describe('TowerTeardown stops running workers', () => {
  test('a worker held mid-run is aborted, its child agent disposed and its background process killed, before the worktrees go', async () => {
    const scratch = makeTempDir('toolhost-tower-pid-');
    const pidFile = nodePath.join(scratch, 'sleep.pid');
    try {
      const { h, runner } = openTower(fx, (_request: SubagentRunRequest) => ({
        batches: [
          [{ name: 'Bash', args: { command: `echo $$ > ${pidFile}; exec sleep 300`, run_in_background: true, description: 'Background sleep' } }],
          // Held here: a foreground command far longer than the test.
          [{ name: 'Bash', args: { command: 'sleep 120', description: 'Long step', timeout: 300 } }],
        ],
        text: 'never reached',
      }));
      await out(h, 'TowerInit', {});
      await out(h, 'TowerPlan', { missions: [{ title: 'Parser', scope: ['src/parser/**'] }] });
      const spawned = await out(h, 'TowerSpawn', { name: 'w1', kind: 'worker', mission_id: 'M1' });
      expect(spawned.isError).toBe(false);
      const taskId = /^task_id: (\S+)$/m.exec(spawned.text)![1]!;
      await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '' && runner.runs[0]?.results.length === 1, 20_000).catch((error: unknown) => {
        throw new Error(`${String(error)}: ${JSON.stringify(runner.runs.map((r) => r.results))} ${fs.existsSync(pidFile)}`);
      });
      const sleepPid = Number(fs.readFileSync(pidFile, 'utf8').trim());
      expect(isAlive(sleepPid)).toBe(true);
      const started = Date.now();
      const down = await out(h, 'TowerTeardown', {});
      expect(down.isError).toBe(false);
      expect(down.text).toContain('stopped: w1 (worker)\nremoved: wt-1');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(fs.existsSync(nodePath.join(fx.dir, '.tower', 'worktrees', 'wt-1'))).toBe(false);
      expect(readState(fx.dir).roster.map((r: { name: string; status: string }) => [r.name, r.status])).toEqual([['w1', 'aborted']]);
      expect(runner.runs[0]!.result?.status).toBe('aborted');
      expect(runner.runs[0]!.request.child.isDisposed).toBe(true);
      expect(h.agent.get(IAgentTaskService).get(taskId)?.status).toBe('killed');
      await until(() => !isAlive(sleepPid), 10_000);
      expect(fs.readFileSync(towerFile(fx.dir, 'log', 'activity.log'), 'utf8')).toContain('teardown: stopped w1 (worker), removed wt-1');
    } finally {
      removeDir(scratch);
    }
  });
});

describe('spawn budget (the reference\'s rate limiter: TOWER_MAX_BUDGET, TOWER_SPAWN_PAUSE_MS)', () => {
  const withClock = (clock: FakeClock) => (container: { rebind: (id: typeof IClock) => { toConstantValue: (value: FakeClock) => unknown } }) => void container.rebind(IClock).toConstantValue(clock);

  test(`a burst of ${TOWER_MAX_BUDGET} spawns, then one slot back every ${TOWER_SPAWN_PAUSE_MS / 1000} s; TowerStatus shows it`, async () => {
    const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
    const { h } = openTower(fx, { text: 'done' }, { appOverrides: withClock(clock), config: { tasks: { maxRunning: 32 } } });
    await out(h, 'TowerInit', {});
    await out(h, 'TowerPlan', { missions: [{ title: 'Review target', scope: ['src/parser/**'] }] });
    const reviewer = (n: number) => out(h, 'TowerSpawn', { name: `r${n}`, kind: 'reviewer', review_target: 'feat/review-target' });
    for (let n = 1; n <= TOWER_MAX_BUDGET; n++) expect((await reviewer(n)).isError).toBe(false);
    await until(() => readState(fx.dir).roster.every((r: { status: string }) => r.status !== 'running'));
    expect((await out(h, 'TowerStatus', {})).text).toContain(`spawn_budget: 0/${TOWER_MAX_BUDGET} (next slot in 60 s)`);
    await clock.advance(25_000);
    const spent = await reviewer(17);
    expect(spent).toEqual({
      isError: true,
      text: `spawn budget spent: ${TOWER_MAX_BUDGET} spawns were made in quick succession, and one slot comes back every 60 s; the next in 35 s. Meanwhile give running workers more work with TowerSend.`,
    });
    expect(readState(fx.dir).roster).toHaveLength(TOWER_MAX_BUDGET);
    await clock.advance(35_000);
    expect((await reviewer(17)).isError).toBe(false);
    expect((await reviewer(18)).text).toContain('the next in 60 s');
    // Three minutes later three slots are back, and the status says so.
    await clock.advance(3 * TOWER_SPAWN_PAUSE_MS);
    expect((await out(h, 'TowerStatus', {})).text).toContain(`spawn_budget: 3/${TOWER_MAX_BUDGET} (next slot in 60 s)`);
  });

  test('a launch that fails (the task limit) gives its slot back', async () => {
    const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
    const { h } = openTower(fx, { turnDelayMs: 120_000, text: 'late' }, { appOverrides: withClock(clock), config: { tasks: { maxRunning: 1 } } });
    await out(h, 'TowerInit', {});
    await out(h, 'TowerPlan', { missions: [{ title: 'Review target', scope: ['src/parser/**'] }] });
    expect((await out(h, 'TowerSpawn', { name: 'r1', kind: 'reviewer', review_target: 'feat/review-target' })).isError).toBe(false);
    const refused = await out(h, 'TowerSpawn', { name: 'r2', kind: 'reviewer', review_target: 'feat/review-target' });
    expect(refused).toEqual({ isError: true, text: expect.stringContaining('Too many background tasks are running (1 of 1; config tasks.maxRunning).') as unknown });
    expect(readState(fx.dir).spawnBudget.slots).toBe(TOWER_MAX_BUDGET - 1);
    expect(readState(fx.dir).roster.map((r: { name: string; status: string }) => [r.name, r.status])).toEqual([['r1', 'running'], ['r2', 'failed']]);
    expect((await out(h, 'TowerTeardown', {})).text).toContain('stopped: r1 (reviewer)');
  });
});

describe('the coordinator lease (.tower/comms/owner.lease)', () => {
  const DIST_INDEX = nodePath.resolve(__dirname, '../../../dist/index.js');
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  /** A second process (the built package) whose main agent runs TowerInit in `repo` and stays alive; resolves with its first line of output. */
  function coordinatorProcess(repo: string, dataDir: string): Promise<{ ok: boolean; output: string }> {
    const script = `
      const th = require(${JSON.stringify(DIST_INDEX)});
      const app = th.createApp({ features: th.builtinFeatures(), env: { ${TOWER_FLAG}: '1' } });
      const agent = app.createAgent({ id: 'coordinator', cwd: ${JSON.stringify(repo)}, dataDir: ${JSON.stringify(dataDir)} });
      agent.executor.execute([{ id: 'c1', name: 'TowerInit', arguments: '{}' }]).then(([r]) => {
        process.stdout.write(JSON.stringify({ ok: !r.isError, output: r.output }) + '\\n');
        setInterval(() => undefined, 1000);
      });`;
    child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
      let text = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const line = text.split('\n')[0];
        if (text.includes('\n') && line) resolve(JSON.parse(line) as { ok: boolean; output: string });
      });
      child!.once('exit', (code) => reject(new Error(`the coordinator process exited (${code}) before TowerInit answered: ${text}`)));
    });
  }

  test('a second process coordinating the same .tower/ keeps this one out; once it is killed, its lease is taken over', async () => {
    const { h } = openTower(fx);
    const other = await coordinatorProcess(fx.dir, nodePath.join(fx.dataDir, 'coordinator'));
    expect(other.output).toContain('status: initialized');
    const lease = JSON.parse(fs.readFileSync(towerFile(fx.dir, 'owner.lease'), 'utf8')) as TowerLeaseRecord;
    expect(lease).toMatchObject({ agentId: 'coordinator', pid: child!.pid, host: os.hostname() });

    const refused = await out(h, 'TowerInit', {});
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(new RegExp(`^tower workspace is owned by a live session \\(agent coordinator, pid ${child!.pid} on ${os.hostname().replace(/[.]/g, '\\.')}, heartbeat \\d+ s ago\\); run Tower tools from that session, or let it run TowerTeardown first\\.$`));
    expect((await out(h, 'TowerPlan', { missions: [{ title: 'X', scope: ['src/x/**'] }] })).text).toMatch(/^tower workspace is coordinated by a live session \(agent coordinator/);
    expect((await out(h, 'TowerTeardown', {})).text).toMatch(/^tower workspace is owned by a live session \(agent coordinator/);

    const pid = child!.pid!;
    child!.kill('SIGKILL');
    await until(() => !isAlive(pid));
    // Its heartbeat is still fresh, but its process is gone: the lease is not live.
    const adopted = await out(h, 'TowerInit', {});
    expect(adopted.isError).toBe(false);
    expect(adopted.text).toContain('status: initialized');
    expect(readState(fx.dir).owner).toBe('main');
    expect(JSON.parse(fs.readFileSync(towerFile(fx.dir, 'owner.lease'), 'utf8'))).toMatchObject({ agentId: 'main', pid: process.pid });
    expect(fs.readFileSync(towerFile(fx.dir, 'log', 'activity.log'), 'utf8')).toContain(`tower init by main, took over the lease of agent coordinator, pid ${pid}`);
    // TowerTeardown gives the lease back.
    await out(h, 'TowerTeardown', {});
    expect(fs.existsSync(towerFile(fx.dir, 'owner.lease'))).toBe(false);
  });

  test('a lease of a live process elsewhere counts while its heartbeat is fresh and is taken over once it is stale; the holder renews it', async () => {
    const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
    const { h } = openTower(fx, undefined, { appOverrides: (container) => void container.rebind(IClock).toConstantValue(clock) });
    fs.mkdirSync(towerFile(fx.dir), { recursive: true });
    // A session on another machine sharing the repository (a network file system): its pid cannot be checked here.
    const foreign: TowerLeaseRecord = { agentId: 'far', instance: 'far-1', pid: 4242, host: 'other-host.example', acquiredAt: clock.now() - 60_000, heartbeatAt: clock.now() - 5_000 };
    fs.writeFileSync(towerFile(fx.dir, 'owner.lease'), JSON.stringify(foreign));
    expect((await out(h, 'TowerInit', {})).text).toContain('owned by a live session (agent far, pid 4242 on other-host.example, heartbeat 5 s ago)');
    await clock.advance(TOWER_LEASE_STALE_MS);
    const taken = await out(h, 'TowerInit', {});
    expect(taken.text).toContain('status: initialized');
    const mine = () => JSON.parse(fs.readFileSync(towerFile(fx.dir, 'owner.lease'), 'utf8')) as TowerLeaseRecord;
    expect(mine()).toMatchObject({ agentId: 'main', heartbeatAt: clock.now() });
    // The heartbeat: renewed every TOWER_LEASE_HEARTBEAT_MS while the session lives.
    const before = clock.now();
    await clock.advance(TOWER_LEASE_HEARTBEAT_MS);
    await until(() => mine().heartbeatAt === before + TOWER_LEASE_HEARTBEAT_MS);
    // An ended agent gives it back: another agent may coordinate at once.
    await h.agent.dispose();
    await until(() => !fs.existsSync(towerFile(fx.dir, 'owner.lease')));
  });
});

describe('MISSIONS.md and the mission files', () => {
  test('written at TowerInit, rewritten with every change of the missions (plan, spawn, task ticks), in step with state.json', async () => {
    const { h } = openTower(fx, { text: 'done' });
    await out(h, 'TowerInit', {});
    const missions = () => fs.readFileSync(towerFile(fx.dir, 'MISSIONS.md'), 'utf8');
    expect(missions()).toContain('# Missions\n\nBase branch: main. Written by the tower from state.json (missions as of version 1)');
    expect(missions()).toContain('none: run TowerPlan');
    await out(h, 'TowerPlan', { missions: [{ title: 'Parser CRLF', scope: ['src/parser/**'], tasks: ['handle CRLF', 'test it'] }, { title: 'Docs survey', scope: ['docs/**'], kind: 'survey', deps: ['M1'] }] });
    expect(missions()).toContain('| M1 | Parser CRLF | build | planned | — | feat/parser-crlf | wt-1 | 0/2 | — | src/parser/** |');
    expect(missions()).toContain('| M2 | Docs survey | survey | planned | — | feat/docs-survey | wt-2 | 0/0 | M1 | docs/** |');
    expect(missions()).toContain('## M1: Parser CRLF\n\nkind: build\nstatus: planned');
    expect(missions()).toContain('### Tasks\n- [ ] T1: handle CRLF\n- [ ] T2: test it');
    expect(fs.readFileSync(towerFile(fx.dir, 'missions', 'M2.md'), 'utf8')).toContain('# M2: Docs survey');
    await out(h, 'TowerMission', { id: 'M1', task_done: 'T2', note: 'tests first' });
    expect(missions()).toContain('| M1 | Parser CRLF | build | planned | — | feat/parser-crlf | wt-1 | 1/2 |');
    expect(missions()).toContain('- [x] T2: test it');
    expect(fs.readFileSync(towerFile(fx.dir, 'missions', 'M1.md'), 'utf8')).toContain('- [x] T2: test it\n\n## Notes\n- tests first');
    const spawned = await out(h, 'TowerSpawn', { name: 'w1', kind: 'worker', mission_id: 'M1' });
    expect(spawned.isError).toBe(false);
    expect(missions()).toContain('| M1 | Parser CRLF | build | active | w1 |');
    const asOf = Number(/missions as of version (\d+)\)/.exec(missions())![1]);
    expect(asOf).toBeGreaterThan(1);
    expect(asOf).toBeLessThanOrEqual(readState(fx.dir).version);
    // .tower/ stays out of git.
    expect(git(fx.dir, 'status', '--porcelain')).toBe('');
  });
});

describe('descriptions', () => {
  test('each Tower tool reads its description from the .md file beside it, with the flag named', () => {
    const { h } = openTower(fx);
    const tools = h.agent.modelTools().filter((t) => t.name.startsWith('Tower'));
    expect(tools).toHaveLength(11);
    for (const tool of tools) {
      const file = nodePath.join(__dirname, '../../../src/features/tower', `${tool.name[0]!.toLowerCase()}${tool.name.slice(1)}.md`);
      expect([tool.name, tool.description]).toEqual([tool.name, fs.readFileSync(file, 'utf8').trimEnd().replace('${TOWER_FLAG}', TOWER_FLAG)]);
      expect(tool.description.startsWith(`Experimental (${TOWER_FLAG}). `)).toBe(true);
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
