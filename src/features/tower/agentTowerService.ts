import * as nodePath from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { isErrnoException } from '../../base/errors';
import { writeFileAtomic } from '../../base/fs/atomicWrite';
import type { RuntimeFs } from '../../base/fs/runtimeFs';
import { IClock } from '../../services/clock/clock';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { type AgentOptions, IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { type DetachedSubagent, ISubagentLauncher, SubagentLaunchError } from '../../tools/agent/contract';
import {
  type Mission,
  type MissionKind,
  type MissionStatus,
  nextSpawnSlotMs,
  refillSpawnBudget,
  type ReviewMerge,
  type RosterEntry,
  type RosterKind,
  TOWER_MAX_BUDGET,
  TOWER_SPAWN_PAUSE_MS,
  TowerError,
  type TowerState,
} from './contract';
import { TowerGit } from './towerGit';
import { checkScope, outOfScope, scopesOverlap } from './towerScope';
import { describeLease, TowerLease, towerLeasePath } from './towerLease';
import { ITowerStateStore, type TowerAfterWrite, type TowerChange, type TowerStateStore, towerStatePath } from './towerStateStore';

/** The roster name of the main agent. */
export const TOWER_NAME = 'tower';
export const BROADCAST_NAME = 'all';
export const TOWER_MAX_RUNNING = 16;
/** The mission overview under `.tower/comms/`, rewritten with every change of the missions. */
export const MISSIONS_FILE = 'MISSIONS.md';
const COMMS_DIRS = ['inbox', 'findings', 'reviews', 'missions', 'log'] as const;
const NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const REVIEW_STATUS_PATTERN = /^(clean|p1-\d+items|p2-\d+items)$/;

export interface TowerReport {
  readonly output: string;
  readonly structuredContent: Record<string, unknown>;
}

export interface PlannedMissionInput {
  readonly title: string;
  readonly scope: readonly string[];
  readonly tasks?: readonly string[] | undefined;
  readonly deps?: readonly string[] | undefined;
  readonly kind?: MissionKind | undefined;
}

export interface MessageInput {
  readonly to: string;
  readonly subject: string;
  readonly body: string;
  readonly scope?: string | undefined;
  readonly action?: string | undefined;
  readonly consent_ref?: string | undefined;
}

export interface MissionPatch {
  readonly id: string;
  readonly status?: MissionStatus | undefined;
  readonly note?: string | undefined;
  readonly blocker?: string | undefined;
  readonly clear_blockers?: boolean | undefined;
  readonly task_done?: string | undefined;
  readonly scope?: readonly string[] | undefined;
}

interface Workspace {
  readonly root: string;
  readonly fs: RuntimeFs;
  readonly git: TowerGit;
  readonly comms: string;
  readonly stateFile: string;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'item';
const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.(\d{3})Z$/, '$1Z');
const missionLine = (m: Mission) => `| ${m.id} | ${m.title} | ${m.kind} | ${m.status} | ${m.branch} | ${m.worktree} | ${m.scope.join(', ')} |`;

/**
 * The Tower protocol for one agent (Agent scope): a file-based workspace under `<repo>/.tower/`,
 * all of it through the agent's runtime (fs and git). The main agent is `tower`; workers and
 * reviewers are the subagents it spawned, known by their agent id in the roster.
 */
@injectable()
export class AgentTowerService {
  /** The workers and reviewers this agent started that are still running, by agent id: TowerTeardown stops them. */
  private readonly running = new Map<string, { readonly name: string; readonly kind: RosterKind; readonly handle: DetachedSubagent }>();

  /** This session's claim to coordinate a workspace (TowerInit takes it, TowerTeardown gives it back). */
  private readonly lease: TowerLease;

  constructor(
    @inject(IAgentOptions) private readonly options: AgentOptions,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(ITowerStateStore) private readonly store: TowerStateStore,
    @inject(IClock) private readonly clock: IClock,
    @inject(ISubagentLauncher) @optional() private readonly launcher: ISubagentLauncher | undefined,
  ) {
    this.lease = new TowerLease(options.id, clock);
  }

  /** An ended agent's session is no longer live: another main agent may adopt its workspace. */
  @preDestroy()
  dispose(): void {
    this.lease.dispose();
  }

  get isMain(): boolean {
    return isMainAgent(this.options);
  }

  private async workspace(): Promise<Workspace> {
    if (!this.runtime.has('process') || !this.runtime.has('fs')) throw new TowerError('Tower needs a runtime with fs and process (it runs git).');
    const git = new TowerGit(this.runtime.requireProcess());
    const root = await git.mainRoot(this.options.cwd);
    if (root === undefined) throw new TowerError(`${this.options.cwd} is not in a git repository (with a .git folder); Tower works in a git repository.`);
    const comms = nodePath.join(root, '.tower', 'comms');
    return { root, fs: this.runtime.requireFs(), git, comms, stateFile: towerStatePath(root) };
  }

  /** The state of an active tower; throws when TowerInit did not run. */
  private async activeState(ws: Workspace): Promise<TowerState> {
    const state = await this.store.read(ws.fs, ws.stateFile);
    if (!state?.active) throw new TowerError('tower mode is not active — run TowerInit first');
    return state;
  }

  private update<R>(ws: Workspace, change: (state: TowerState) => { readonly state: Omit<TowerState, 'version'>; readonly result: R }): Promise<R> {
    const guarded: TowerChange<R> = (current) => {
      if (!current?.active) throw new TowerError('tower mode is not active — run TowerInit first');
      return change(current);
    };
    return this.store.update(ws.fs, ws.stateFile, guarded, this.missionViews(ws)).then((outcome) => outcome.result);
  }

  /**
   * Keeps `comms/MISSIONS.md` (every mission: a table, then each one's tasks) and
   * `comms/missions/<id>.md` (one per mission) in step with the state: rewritten after each write
   * that changed missions, under the state lock, so they follow the versions in order.
   */
  private missionViews(ws: Workspace): TowerAfterWrite {
    return async (written, previous) => {
      if (previous !== undefined && previous.missions === written.missions) return;
      const before = new Map((previous?.missions ?? []).map((m) => [m.id, JSON.stringify(m)]));
      const changed = written.missions.filter((m) => before.get(m.id) !== JSON.stringify(m));
      // A new state gets its (empty) MISSIONS.md too.
      if (changed.length === 0 && previous !== undefined) return;
      for (const mission of changed) await writeFileAtomic(ws.fs, nodePath.join(ws.comms, 'missions', `${mission.id}.md`), (sink) => sink.write(`${renderMission(mission)}\n`));
      await writeFileAtomic(ws.fs, nodePath.join(ws.comms, MISSIONS_FILE), (sink) => sink.write(renderMissions(written)));
    };
  }

  /** The state, for the orchestration tools (plan, spawn, merge): only the session holding the lease coordinates. */
  private async coordinatorState(ws: Workspace): Promise<TowerState> {
    const state = await this.activeState(ws);
    if (this.lease.isHeld) return state;
    const other = await this.lease.liveOther(ws.fs, towerLeasePath(ws.comms));
    if (other) throw new TowerError(`tower workspace is coordinated by a live session (${describeLease(other, this.clock.now())}); only that session plans, spawns and merges.`);
    throw new TowerError('this session does not coordinate the tower workspace yet (its last coordinator ended) — run TowerInit to take it over.');
  }

  /** The caller's roster name: `tower` for the main agent, else its roster entry. */
  private whoAmI(state: TowerState): { readonly name: string; readonly entry?: RosterEntry } {
    if (this.isMain) return { name: TOWER_NAME };
    const entry = state.roster.find((r) => r.agentId === this.options.id && r.status !== 'retired');
    if (!entry) throw new TowerError(`agent ${this.options.id} is not on the tower roster; only the tower's workers and reviewers use the Tower tools.`);
    return { name: entry.name, entry };
  }

  private async log(ws: Workspace, line: string): Promise<void> {
    await ws.fs.appendFile(nodePath.join(ws.comms, 'log', 'activity.log'), `${new Date().toISOString()} ${line}\n`);
  }

  /** Creates `dir/<base>.md` exclusively (O_EXCL); a taken name gets `-2`, `-3`, … */
  private async createExclusive(ws: Workspace, dir: string, base: string, text: string): Promise<string> {
    for (let n = 1; ; n++) {
      const file = nodePath.join(dir, `${base}${n === 1 ? '' : `-${n}`}.md`);
      let handle;
      try {
        handle = await ws.fs.open(file, 'wx');
      } catch (error) {
        if (isErrnoException(error) && error.code === 'EEXIST' && n < 1000) continue;
        throw error;
      }
      try {
        await handle.writeFile(text, 'utf8');
      } finally {
        await handle.close();
      }
      return file;
    }
  }

  async init(): Promise<TowerReport> {
    const ws = await this.workspace();
    const baseBranch = await ws.git.currentBranch(ws.root);
    if (baseBranch === undefined) throw new TowerError(`the main checkout ${ws.root} is not on a branch (detached HEAD); check out the base branch, then run TowerInit.`);
    for (const dir of COMMS_DIRS) await ws.fs.mkdir(nodePath.join(ws.comms, dir), { recursive: true });
    await ws.fs.mkdir(nodePath.join(ws.root, '.tower', 'worktrees'), { recursive: true });
    await this.excludeTowerFolder(ws);
    const me = this.options.id;
    const heldBefore = this.lease.isHeld;
    const { tookOver } = await this.lease.acquire(ws.fs, towerLeasePath(ws.comms));
    interface InitOutcome {
      readonly outcome: 'initialized' | 'already-initialized';
      readonly baseBranch: string;
      readonly retired: number;
    }
    const { result } = await this.store.update<InitOutcome>(ws.fs, ws.stateFile, (current) => {
      // This session's own workspace; anything else active is a session that ended (the lease said so): adopted.
      if (current?.active && current.owner === me && heldBefore) return { skip: { outcome: 'already-initialized', baseBranch: current.baseBranch, retired: 0 } };
      const retired = current?.roster.filter((r) => r.status === 'running').length ?? 0;
      const state: Omit<TowerState, 'version'> = current
        ? { ...current, active: true, owner: me, roster: current.roster.map((r) => (r.status === 'running' ? { ...r, status: 'retired' as const } : r)) }
        : { active: true, baseBranch, owner: me, missions: [], roster: [], reviews: [], nextWorktree: 1 };
      return { state, result: { outcome: 'initialized', baseBranch: state.baseBranch, retired } };
    }, this.missionViews(ws));
    if (result.outcome === 'initialized') {
      const from = tookOver ? `, took over the lease of ${describeLease(tookOver, this.clock.now())}` : '';
      await this.log(ws, `tower init by ${me}${from}${result.retired ? ` (retired ${result.retired} roster entries of a dead session)` : ''}`);
    }
    const lines = [
      `status: ${result.outcome}`,
      `base_branch: ${result.baseBranch}`,
      `root: ${ws.root}`,
      ...(result.retired ? [`retired: ${result.retired} roster entries of a session that ended`] : []),
      '',
      'next_step: TowerPlan with the missions (disjoint scopes), then TowerSpawn a worker per mission.',
    ];
    return { output: lines.join('\n'), structuredContent: { status: result.outcome, base_branch: result.baseBranch, root: ws.root } };
  }

  /** `.tower/` stays out of `git status` and diffs. */
  private async excludeTowerFolder(ws: Workspace): Promise<void> {
    const exclude = nodePath.join(ws.root, '.git', 'info', 'exclude');
    let text = '';
    try {
      text = await ws.fs.readFile(exclude, 'utf8');
    } catch (error) {
      if (!(isErrnoException(error) && error.code === 'ENOENT')) throw error;
      await ws.fs.mkdir(nodePath.dirname(exclude), { recursive: true });
    }
    if (!text.split('\n').includes('/.tower/')) await ws.fs.appendFile(exclude, `${text === '' || text.endsWith('\n') ? '' : '\n'}/.tower/\n`);
  }

  async plan(missions: readonly PlannedMissionInput[]): Promise<TowerReport> {
    const ws = await this.workspace();
    await this.coordinatorState(ws);
    const tracked = await ws.git.trackedFiles(ws.root);
    const planned = await this.update(ws, (state) => {
      let next = state.missions.length + 1;
      let nextWorktree = state.nextWorktree;
      const added: Mission[] = missions.map((input) => {
        checkScope(input.title, input.scope);
        const id = `M${next++}`;
        return {
          id,
          title: input.title,
          kind: input.kind ?? 'build',
          scope: [...input.scope],
          tasks: (input.tasks ?? []).map((text, i) => ({ id: `T${i + 1}`, text, done: false })),
          deps: [...(input.deps ?? [])],
          branch: `feat/${slug(input.title)}`,
          worktree: `wt-${nextWorktree++}`,
          status: 'planned',
          notes: [],
          blockers: [],
        };
      });
      const all = [...state.missions, ...added];
      for (const mission of added) {
        for (const dep of mission.deps) if (!all.some((m) => m.id === dep && m.id !== mission.id)) throw new TowerError(`mission "${mission.title}": dependency ${dep} is not a mission (known: ${all.map((m) => m.id).join(', ')}).`);
        if (all.some((m) => m !== mission && m.branch === mission.branch)) throw new TowerError(`mission "${mission.title}": branch ${mission.branch} is taken by another mission; give it a different title.`);
      }
      const builds = all.filter((m) => m.kind === 'build' && m.status !== 'merged');
      for (const mission of added.filter((m) => m.kind === 'build')) {
        for (const other of builds) {
          if (other === mission || (added.indexOf(other) !== -1 && added.indexOf(other) > added.indexOf(mission))) continue;
          const shared = scopesOverlap(mission.scope, other.scope, tracked);
          if (shared !== undefined) throw new TowerError(`build missions "${other.title}" and "${mission.title}" overlap (both cover ${shared}); give each build mission a disjoint scope, or make one a survey.`);
        }
      }
      return { state: { ...state, missions: all, nextWorktree }, result: added };
    });
    await this.log(ws, `plan: ${planned.map((m) => m.id).join(', ')}`);
    const table = ['| ID | Mission | Kind | Status | Branch | Worktree | Scope |', '|---|---|---|---|---|---|---|', ...planned.map(missionLine)];
    return {
      output: [`planned: ${planned.length}`, '', ...table, '', 'next_step: TowerSpawn a worker per mission (kind "worker", mission_id).'].join('\n'),
      structuredContent: { missions: planned },
    };
  }

  async spawn(input: { readonly name: string; readonly kind: RosterKind; readonly mission_id?: string | undefined; readonly review_target?: string | undefined; readonly instructions?: string | undefined }): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.coordinatorState(ws);
    if (!NAME_PATTERN.test(input.name) || input.name === TOWER_NAME || input.name === BROADCAST_NAME) {
      throw new TowerError(`name "${input.name}" is not usable: use lower-case letters, digits and "-" (at most 32), not "${TOWER_NAME}" or "${BROADCAST_NAME}".`);
    }
    const taken = state.roster.find((r) => r.name === input.name && r.status !== 'retired');
    if (taken) throw new TowerError(`${input.name} is already on the roster (${taken.kind}, ${taken.status}); pick another name, or send it a message with TowerSend.`);
    if (!this.launcher?.available) throw new TowerError('workers cannot be spawned: no subagent runner is bound to this App (or background tasks are off).');
    if (state.roster.filter((r) => r.status === 'running').length >= TOWER_MAX_RUNNING) throw new TowerError(`${TOWER_MAX_RUNNING} tower agents are running; wait for one to finish.`);
    // Checked before the worktree is made, and again (authoritatively) when the slot is taken.
    spendSpawnSlot(state, this.clock.now());
    let mission: Mission | undefined;
    if (input.kind === 'worker') {
      if (input.mission_id === undefined) throw new TowerError('a worker needs mission_id (see TowerStatus for the missions).');
      mission = state.missions.find((m) => m.id === input.mission_id);
      if (!mission) throw new TowerError(`mission ${input.mission_id} does not exist (known: ${state.missions.map((m) => m.id).join(', ') || 'none; run TowerPlan'}).`);
      if (mission.status === 'merged') throw new TowerError(`mission ${mission.id} is merged already.`);
    } else {
      if (input.review_target === undefined) throw new TowerError('a reviewer needs review_target: the branch to review.');
      if (!state.missions.some((m) => m.branch === input.review_target)) throw new TowerError(`review_target ${input.review_target} is not a mission branch (known: ${state.missions.map((m) => m.branch).join(', ')}).`);
    }
    const warnings: string[] = [];
    let cwd = ws.root;
    if (mission) {
      const path = nodePath.join(ws.root, '.tower', 'worktrees', mission.worktree);
      try {
        if (!(await ws.git.succeeds(ws.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${mission.branch}`]))) {
          await ws.git.run(ws.root, ['worktree', 'add', '--quiet', '-b', mission.branch, path, state.baseBranch]);
        } else if (!(await pathExists(ws.fs, path))) {
          await ws.git.run(ws.root, ['worktree', 'add', '--quiet', path, mission.branch]);
        }
        cwd = path;
      } catch (error) {
        warnings.push(`warning: the worktree could not be created (${error instanceof Error ? error.message : String(error)}); the worker starts in ${ws.root}.`);
      }
    }
    const prompt = this.briefing(input, mission, cwd, state.baseBranch);
    // On the roster before it starts: its first Tower call must find it.
    const agentId = this.launcher.newAgentId();
    const entry: RosterEntry = {
      name: input.name,
      kind: input.kind,
      agentId,
      taskId: '',
      ...(mission ? { missionId: mission.id } : {}),
      ...(input.review_target !== undefined ? { reviewTarget: input.review_target } : {}),
      status: 'running',
      spawnedAt: new Date().toISOString(),
    };
    await this.update(ws, (s) => {
      if (s.roster.some((r) => r.name === input.name && r.status !== 'retired')) throw new TowerError(`${input.name} is already on the roster; pick another name.`);
      return {
        state: {
          ...s,
          spawnBudget: spendSpawnSlot(s, this.clock.now()),
          roster: [...s.roster, entry],
          missions: s.missions.map((m) => (m.id === mission?.id ? { ...m, status: m.status === 'planned' ? 'active' : m.status, owner: input.name } : m)),
        },
        result: undefined,
      };
    });
    let started;
    try {
      started = this.launcher.startDetached({ description: `tower ${input.kind} ${input.name}`, prompt, profile: 'general', cwd, agentId });
    } catch (error) {
      await this.setRosterStatus(ws, agentId, 'failed');
      // Nothing ran: the slot is given back.
      await this.update(ws, (s) => ({ state: { ...s, spawnBudget: refundSpawnSlot(s, this.clock.now()) }, result: undefined }));
      if (error instanceof SubagentLaunchError) throw new TowerError(error.message);
      throw error;
    }
    const taskId = started.taskId;
    this.running.set(agentId, { name: input.name, kind: input.kind, handle: started });
    await this.update(ws, (s) => ({ state: { ...s, roster: s.roster.map((r) => (r.agentId === agentId ? { ...r, taskId } : r)) }, result: undefined }));
    await this.log(ws, `spawn ${input.kind} ${input.name} (${started.agentId}, task ${started.taskId})${mission ? ` on ${mission.id}` : ` reviewing ${input.review_target}`}`);
    void started.settled.then(async (end) => {
      this.running.delete(agentId);
      await this.setRosterStatus(ws, agentId, end.status).catch(() => undefined);
      await this.log(ws, `${input.name} ended: ${end.status}${end.error ? ` (${end.error})` : ''}`).catch(() => undefined);
    });
    const fields = { name: input.name, kind: input.kind, agent_id: started.agentId, task_id: started.taskId, status: 'running', ...(mission ? { mission: mission.id, branch: mission.branch, worktree: cwd } : { review_target: input.review_target }) };
    return { output: [...Object.entries(fields).map(([k, v]) => `${k}: ${String(v)}`), ...warnings].join('\n'), structuredContent: fields };
  }

  /** Marks a running roster entry as ended (also after TowerTeardown: the state stays). */
  private async setRosterStatus(ws: Workspace, agentId: string, status: RosterEntry['status']): Promise<void> {
    await this.store.update(ws.fs, ws.stateFile, (s) =>
      s ? { state: { ...s, roster: s.roster.map((r) => (r.agentId === agentId && r.status === 'running' ? { ...r, status } : r)) }, result: undefined } : { skip: undefined },
    this.missionViews(ws));
  }

  private briefing(input: { readonly name: string; readonly kind: RosterKind; readonly review_target?: string | undefined; readonly instructions?: string | undefined }, mission: Mission | undefined, cwd: string, base: string): string {
    const lines = [`You are "${input.name}", a tower ${input.kind}. The tower (the main agent) coordinates; talk to it with TowerSend (to "tower") and read replies with TowerInbox.`, `Working directory: ${cwd}. Base branch: ${base}.`];
    if (mission) {
      lines.push(`Mission ${mission.id}: ${mission.title} (${mission.kind}) on branch ${mission.branch}.`, `Scope (only change files matching these globs): ${mission.scope.join(', ')}.`);
      if (mission.tasks.length > 0) lines.push('Tasks (tick each with TowerMission task_done: "<id>"):', ...mission.tasks.map((t) => `- ${t.id}: ${t.text}`));
      if (mission.kind === 'survey') lines.push('This is a survey: change no files; report with TowerFinding and TowerSend.');
      lines.push('Commit your work on the branch. Report out-of-scope problems with TowerFinding instead of fixing them. When done: TowerMission status "done", then TowerSend the tower a summary.');
    } else {
      lines.push(`Review branch ${input.review_target ?? ''} against ${base} (git diff ${base}...${input.review_target ?? ''}). Submit with TowerReview, then TowerSend the tower.`);
    }
    if (input.instructions) lines.push('', input.instructions);
    return lines.join('\n');
  }

  async merge(branch: string): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.coordinatorState(ws);
    const mission = state.missions.find((m) => m.branch === branch);
    if (!mission) throw new TowerError(`merge blocked: ${branch} is not a mission branch (known: ${state.missions.map((m) => m.branch).join(', ')}).`);
    if (mission.status === 'merged') throw new TowerError(`merge blocked: ${mission.id} (${branch}) is merged already.`);
    const openDeps = mission.deps.filter((dep) => state.missions.find((m) => m.id === dep)?.status !== 'merged');
    if (openDeps.length > 0) throw new TowerError(`merge blocked: ${mission.id} depends on ${openDeps.join(', ')}, not merged yet; merge those first.`);
    const tip = await ws.git.tip(ws.root, branch);
    if (tip === undefined) throw new TowerError(`merge blocked: branch ${branch} does not exist; spawn a worker for ${mission.id} first.`);
    const changed = await ws.git.changedFiles(ws.root, state.baseBranch, branch);
    if (mission.kind === 'survey') {
      if (changed.length > 0) throw new TowerError(`merge blocked: ${mission.id} is a survey but ${branch} changes ${changed.length} files (${changed.slice(0, 5).join(', ')}); a survey changes nothing — revert them or plan a build mission.`);
      await this.markMerged(ws, mission.id);
      return { output: `merged: ${branch} (survey, no changes: nothing to merge)\nmission: ${mission.id}`, structuredContent: { merged: branch, mission: mission.id, noop: true } };
    }
    const review = [...state.reviews].reverse().find((r) => r.target === branch);
    if (!review) throw new TowerError(`merge blocked: ${branch} has no review; spawn a reviewer (TowerSpawn kind "reviewer", review_target "${branch}").`);
    if (review.status !== 'clean') throw new TowerError(`merge blocked: the latest review of ${branch} (round ${review.round}) is ${review.status}, not clean; fix the findings and review again.`);
    if (review.reviewedCommit !== tip) throw new TowerError(`merge blocked: ${branch} moved since its review (reviewed ${review.reviewedCommit.slice(0, 12)}, tip ${tip.slice(0, 12)}); review the new tip.`);
    const outside = outOfScope(changed, mission.scope);
    if (outside.length > 0) throw new TowerError(`merge blocked: ${branch} changes files outside the scope of ${mission.id} (${mission.scope.join(', ')}): ${outside.join(', ')}; revert them on the branch or widen the scope with TowerMission.`);
    const current = await ws.git.currentBranch(ws.root);
    if (current !== state.baseBranch) throw new TowerError(`merge blocked: the main checkout is on ${current ?? 'a detached HEAD'}, not ${state.baseBranch}; check out ${state.baseBranch} in ${ws.root}.`);
    try {
      await ws.git.run(ws.root, ['merge', '--no-ff', '--no-edit', '-m', `tower: merge ${branch} (${mission.id} ${mission.title})`, branch]);
    } catch (error) {
      await ws.git.succeeds(ws.root, ['merge', '--abort']);
      throw new TowerError(`merge blocked: git could not merge ${branch} (${error instanceof Error ? error.message : String(error)}); the merge was aborted. Rebase the branch on ${state.baseBranch} in its worktree and review again.`);
    }
    await this.markMerged(ws, mission.id);
    await this.log(ws, `merged ${branch} (${mission.id})`);
    const touching: string[] = [];
    for (const other of state.missions) {
      if (other.id === mission.id || other.status === 'merged' || (await ws.git.tip(ws.root, other.branch)) === undefined) continue;
      const files = await ws.git.changedFiles(ws.root, state.baseBranch, other.branch);
      if (files.some((f) => changed.includes(f))) touching.push(other.branch);
    }
    const lines = [`merged: ${branch}`, `mission: ${mission.id}`, `files: ${changed.length}`, ...(touching.length > 0 ? [`also_touching: ${touching.join(', ')} (rebase them on ${state.baseBranch})`] : [])];
    return { output: lines.join('\n'), structuredContent: { merged: branch, mission: mission.id, files: changed, also_touching: touching } };
  }

  private markMerged(ws: Workspace, id: string): Promise<void> {
    return this.update(ws, (s) => ({ state: { ...s, missions: s.missions.map((m) => (m.id === id ? { ...m, status: 'merged' } : m)) }, result: undefined }));
  }

  async teardown(force: boolean): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const other = await this.lease.liveOther(ws.fs, towerLeasePath(ws.comms));
    if (other) throw new TowerError(`tower workspace is owned by a live session (${describeLease(other, this.clock.now())}); tear it down from there.`);
    // Workers first: none may still write in a worktree while it is removed.
    const stopped = await this.stopWorkers(ws);
    const removed: string[] = [];
    const kept: string[] = [];
    for (const mission of state.missions) {
      const path = nodePath.join(ws.root, '.tower', 'worktrees', mission.worktree);
      if (!(await pathExists(ws.fs, path))) continue;
      if (!force && (await ws.git.isDirty(path))) {
        kept.push(`${mission.worktree} (uncommitted changes)`);
        continue;
      }
      await ws.git.run(ws.root, ['worktree', 'remove', ...(force ? ['--force'] : []), path]);
      removed.push(mission.worktree);
    }
    await this.update(ws, (s) => ({ state: { ...s, active: false }, result: undefined }));
    await this.lease.release();
    await this.log(ws, `teardown: stopped ${stopped.join(', ') || 'none'}, removed ${removed.join(', ') || 'none'}${kept.length ? `, kept ${kept.join(', ')}` : ''}`);
    const lines = [
      'status: tower mode ended',
      `stopped: ${stopped.join(', ') || 'none'}`,
      `removed: ${removed.join(', ') || 'none'}`,
      ...(kept.length ? [`kept: ${kept.join(', ')} — commit them, or TowerTeardown with force: true`] : []),
      `comms: ${ws.comms} (kept)`,
    ];
    return { output: lines.join('\n'), structuredContent: { stopped, removed, kept, comms: ws.comms } };
  }

  /** Stops every worker and reviewer still running (their runs aborted, the child agents disposed, their tasks killed) and marks them aborted. */
  private async stopWorkers(ws: Workspace): Promise<string[]> {
    const workers = [...this.running];
    await Promise.all(workers.map(([, w]) => w.handle.stop('TowerTeardown ended tower mode')));
    for (const [agentId] of workers) {
      this.running.delete(agentId);
      await this.setRosterStatus(ws, agentId, 'aborted');
    }
    return workers.map(([, w]) => `${w.name} (${w.kind})`);
  }

  async send(input: MessageInput): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const me = this.whoAmI(state).name;
    const known = [TOWER_NAME, ...state.roster.filter((r) => r.status !== 'retired').map((r) => r.name)];
    const others = [...known.filter((n) => n !== me), BROADCAST_NAME].join(', ');
    if (input.to === me) throw new TowerError(`you are ${me}; send to someone else (known: ${others}).`);
    if (input.to !== BROADCAST_NAME && !known.includes(input.to)) throw new TowerError(`"${input.to}" is not on the roster; send to one of: ${others}.`);
    const now = new Date();
    const header = [`from: ${me}`, `to: ${input.to}`, `subject: ${input.subject.replace(/\n/g, ' ')}`, `date: ${now.toISOString()}`];
    if (input.scope !== undefined) header.push(`scope: ${input.scope}`);
    if (input.action !== undefined) header.push(`action: ${input.action}`);
    if (input.consent_ref !== undefined) header.push(`consent_ref: ${input.consent_ref}`);
    const file = await this.createExclusive(ws, nodePath.join(ws.comms, 'inbox'), `${stamp(now)}-${me}-${input.to}-${slug(input.subject)}`, `${header.join('\n')}\n\n${input.body}\n`);
    return { output: `message sent to ${input.to}\nfile: ${file}`, structuredContent: { to: input.to, from: me, file } };
  }

  async inbox(limit: number): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const me = this.whoAmI(state).name;
    const dir = nodePath.join(ws.comms, 'inbox');
    const names = (await ws.fs.readdir(dir)).filter((n) => n.endsWith('.md')).sort().reverse();
    const messages: { readonly file: string; readonly from: string; readonly to: string; readonly text: string }[] = [];
    for (const name of names) {
      if (messages.length >= limit) break;
      const text = await ws.fs.readFile(nodePath.join(dir, name), 'utf8');
      const field = (key: string) => new RegExp(`^${key}: (.*)$`, 'm').exec(text)?.[1] ?? '';
      const to = field('to');
      if (me === TOWER_NAME || to === me || (to === BROADCAST_NAME && field('from') !== me)) messages.push({ file: name, from: field('from'), to, text: text.trimEnd() });
    }
    if (messages.length === 0) return { output: `inbox empty for ${me}`, structuredContent: { name: me, messages: [] } };
    return { output: [`inbox: ${me}`, `messages: ${messages.length}`, '', messages.map((m) => m.text).join('\n---\n')].join('\n'), structuredContent: { name: me, messages } };
  }

  async finding(input: { readonly type: string; readonly title: string; readonly severity?: string | undefined; readonly summary: string; readonly location?: string | undefined; readonly details: string; readonly suggested_fix: string }): Promise<TowerReport> {
    const ws = await this.workspace();
    const me = this.whoAmI(await this.activeState(ws)).name;
    const now = new Date();
    const text = [`# ${input.title}`, '', `type: ${input.type}`, `severity: ${input.severity ?? 'medium'}`, `by: ${me}`, `date: ${now.toISOString()}`, ...(input.location ? [`location: ${input.location}`] : []), '', '## Summary', input.summary, '', '## Details', input.details, '', '## Suggested fix', input.suggested_fix, ''].join('\n');
    const file = await this.createExclusive(ws, nodePath.join(ws.comms, 'findings'), `${stamp(now)}-${me}-${input.type}-${slug(input.title)}`, text);
    await this.log(ws, `finding by ${me}: ${input.title}`);
    return { output: `finding: ${file}\nnote: do not fix out-of-scope issues yourself; the tower decides.`, structuredContent: { file } };
  }

  async review(input: { readonly target: string; readonly status: string; readonly merge: ReviewMerge; readonly findings: string; readonly checks?: string | undefined; readonly decision: string }): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const { name: me, entry } = this.whoAmI(state);
    if (!REVIEW_STATUS_PATTERN.test(input.status)) throw new TowerError(`status "${input.status}" is not a review status: use clean, p1-<N>items or p2-<N>items (e.g. p1-2items).`);
    if (me !== TOWER_NAME && !(entry?.kind === 'reviewer' && entry.reviewTarget === input.target)) throw new TowerError(`only the reviewer assigned to ${input.target} or the tower may review it.`);
    const tip = await ws.git.tip(ws.root, input.target);
    if (tip === undefined) throw new TowerError(`branch ${input.target} does not exist.`);
    const now = new Date();
    const round = state.reviews.filter((x) => x.target === input.target).length + 1;
    const text = [`# Review of ${input.target}, round ${round}`, '', `status: ${input.status}`, `merge: ${input.merge}`, `reviewer: ${me}`, `reviewed_commit: ${tip}`, `date: ${now.toISOString()}`, '', '## Findings', input.findings, ...(input.checks ? ['', '## Checks', input.checks] : []), '', '## Decision', input.decision, ''].join('\n');
    const file = await this.createExclusive(ws, nodePath.join(ws.comms, 'reviews'), `${slug(input.target)}-r${round}`, text);
    const record = { target: input.target, round, status: input.status, merge: input.merge, reviewedCommit: tip, reviewer: me, file: nodePath.relative(ws.comms, file), at: now.toISOString() };
    await this.update(ws, (s) => ({ state: { ...s, reviews: [...s.reviews, record] }, result: undefined }));
    await this.log(ws, `review of ${input.target} r${round} by ${me}: ${input.status}`);
    return { output: `review: ${file}\nround: ${round}\nreviewed_commit: ${tip}\nnext_step: TowerSend the tower the outcome.`, structuredContent: record };
  }

  async mission(patch: MissionPatch): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const { name: me, entry } = this.whoAmI(state);
    const found = state.missions.find((m) => m.id === patch.id);
    if (!found) throw new TowerError(`mission ${patch.id} does not exist (known: ${state.missions.map((m) => m.id).join(', ') || 'none'}).`);
    const changes = [patch.status, patch.note, patch.blocker, patch.clear_blockers, patch.task_done, patch.scope].some((v) => v !== undefined);
    if (changes && me !== TOWER_NAME && entry?.missionId !== patch.id) throw new TowerError(`${me} may update only its own mission${entry?.missionId ? ` (${entry.missionId})` : ''}.`);
    if (patch.scope !== undefined && me !== TOWER_NAME) throw new TowerError('only the tower may change a mission scope; ask it with TowerSend.');
    const tracked = patch.scope !== undefined ? await ws.git.trackedFiles(ws.root) : [];
    const mission = !changes
      ? found
      : await this.update(ws, (s) => {
          const current = s.missions.find((m) => m.id === patch.id)!;
          let tasks = current.tasks;
          if (patch.task_done !== undefined) {
            const task = tasks.find((t) => t.id === patch.task_done);
            if (!task) throw new TowerError(`mission ${current.id} has no task ${patch.task_done} (tasks: ${tasks.map((t) => t.id).join(', ') || 'none'}); tick tasks by id.`);
            tasks = tasks.map((t) => (t.id === task.id ? { ...t, done: true } : t));
          }
          if (patch.scope !== undefined) {
            checkScope(current.title, patch.scope);
            if (current.kind === 'build') {
              for (const other of s.missions.filter((m) => m.id !== current.id && m.kind === 'build' && m.status !== 'merged')) {
                const shared = scopesOverlap(patch.scope, other.scope, tracked);
                if (shared !== undefined) throw new TowerError(`the new scope overlaps mission ${other.id} (both cover ${shared}); keep build scopes disjoint.`);
              }
            }
          }
          const blockers = patch.clear_blockers ? [] : [...current.blockers, ...(patch.blocker !== undefined ? [patch.blocker] : [])];
          const next: Mission = {
            ...current,
            tasks,
            blockers,
            notes: patch.note !== undefined ? [...current.notes, patch.note] : current.notes,
            status: patch.blocker !== undefined ? 'blocked' : (patch.status ?? current.status),
            ...(patch.scope !== undefined ? { scope: [...patch.scope] } : {}),
          };
          return { state: { ...s, missions: s.missions.map((m) => (m.id === next.id ? next : m)) }, result: next };
        });
    const markdown = renderMission(mission);
    // The mission's file and MISSIONS.md were rewritten with the state (missionViews).
    if (changes) await this.log(ws, `mission ${mission.id} updated by ${me}`);
    return { output: markdown, structuredContent: { mission } };
  }

  async status(): Promise<TowerReport> {
    const ws = await this.workspace();
    const state = await this.activeState(ws);
    const gates: string[] = [];
    for (const m of state.missions.filter((x) => x.status !== 'merged')) {
      const tip = await ws.git.tip(ws.root, m.branch);
      const review = [...state.reviews].reverse().find((r) => r.target === m.branch);
      const gate = tip === undefined ? 'no branch yet' : !review ? 'not reviewed' : review.reviewedCommit !== tip ? `review r${review.round} is stale (tip moved)` : `review r${review.round}: ${review.status}`;
      gates.push(`- ${m.branch}: ${gate}`);
    }
    const inboxCount = (await ws.fs.readdir(nodePath.join(ws.comms, 'inbox'))).filter((n) => n.endsWith('.md')).length;
    let activity: string[] = [];
    try {
      activity = (await ws.fs.readFile(nodePath.join(ws.comms, 'log', 'activity.log'), 'utf8')).trimEnd().split('\n').slice(-10);
    } catch (error) {
      if (!(isErrnoException(error) && error.code === 'ENOENT')) throw error;
    }
    const running = state.roster.filter((r) => r.status === 'running').length;
    const now = this.clock.now();
    const budget = refillSpawnBudget(state.spawnBudget, now);
    const nextSlot = nextSpawnSlotMs(budget, now);
    const allMerged = state.missions.length > 0 && state.missions.every((m) => m.status === 'merged');
    const lines = [
      `base_branch: ${state.baseBranch}`,
      `version: ${state.version}`,
      `running: ${running}/${TOWER_MAX_RUNNING}`,
      `spawn_budget: ${budget.slots}/${TOWER_MAX_BUDGET}${nextSlot > 0 ? ` (next slot in ${Math.ceil(nextSlot / 1000)} s)` : ''}`,
      `inbox: ${inboxCount}`,
      '',
      '## Missions',
      ...(state.missions.length ? ['| ID | Mission | Kind | Status | Branch | Worktree | Scope |', '|---|---|---|---|---|---|---|', ...state.missions.map(missionLine)] : ['none: run TowerPlan']),
      '',
      '## Roster',
      ...(state.roster.length ? state.roster.map((r) => `- ${r.name} (${r.kind}, ${r.status}) agent ${r.agentId}, task ${r.taskId}${r.missionId ? `, ${r.missionId}` : ''}${r.reviewTarget ? `, reviews ${r.reviewTarget}` : ''}`) : ['none']),
      '',
      '## Review gate',
      ...(gates.length ? gates : ['nothing unmerged']),
      '',
      '## Activity',
      ...(activity.length ? activity : ['none']),
      ...(allMerged ? ['', 'next_step: every mission is merged; run TowerTeardown.'] : []),
    ];
    return { output: lines.join('\n'), structuredContent: { state, running, spawn_budget: { slots: budget.slots, max: TOWER_MAX_BUDGET, next_slot_ms: nextSlot }, inbox: inboxCount, gates, activity } };
  }
}

/** The budget after one spawn; a TowerError saying when the next slot comes back when it is spent. */
function spendSpawnSlot(state: TowerState, now: number): TowerState['spawnBudget'] {
  const budget = refillSpawnBudget(state.spawnBudget, now);
  if (budget.slots < 1) {
    const wait = Math.ceil(nextSpawnSlotMs(budget, now) / 1000);
    throw new TowerError(
      `spawn budget spent: ${TOWER_MAX_BUDGET} spawns were made in quick succession, and one slot comes back every ${TOWER_SPAWN_PAUSE_MS / 1000} s; the next in ${wait} s. Meanwhile give running workers more work with TowerSend.`,
    );
  }
  return { slots: budget.slots - 1, at: budget.at };
}

function refundSpawnSlot(state: TowerState, now: number): TowerState['spawnBudget'] {
  const budget = refillSpawnBudget(state.spawnBudget, now);
  return { slots: Math.min(TOWER_MAX_BUDGET, budget.slots + 1), at: budget.at };
}

/** `comms/MISSIONS.md`: the plan at a glance, then each mission as its own file shows it. */
function renderMissions(state: TowerState): string {
  const done = (m: Mission) => `${m.tasks.filter((t) => t.done).length}/${m.tasks.length}`;
  const lines = [
    '# Missions',
    '',
    `Base branch: ${state.baseBranch}. Written by the tower from state.json (missions as of version ${state.version}); edit missions with TowerPlan and TowerMission, not here.`,
    '',
    ...(state.missions.length === 0
      ? ['none: run TowerPlan']
      : [
          '| ID | Mission | Kind | Status | Owner | Branch | Worktree | Tasks done | Deps | Scope |',
          '|---|---|---|---|---|---|---|---|---|---|',
          ...state.missions.map((m) => `| ${m.id} | ${m.title} | ${m.kind} | ${m.status} | ${m.owner ?? '—'} | ${m.branch} | ${m.worktree} | ${done(m)} | ${m.deps.join(', ') || '—'} | ${m.scope.join(', ')} |`),
        ]),
    ...state.missions.flatMap((m) => ['', renderMission(m).replace(/^# /, '## ').replace(/\n## /g, '\n### ')]),
  ];
  return `${lines.join('\n')}\n`;
}

function renderMission(m: Mission): string {
  return [
    `# ${m.id}: ${m.title}`,
    '',
    `kind: ${m.kind}`,
    `status: ${m.status}`,
    `branch: ${m.branch}`,
    `worktree: ${m.worktree}`,
    `owner: ${m.owner ?? 'none'}`,
    `scope: ${m.scope.join(', ')}`,
    `deps: ${m.deps.join(', ') || 'none'}`,
    '',
    '## Tasks',
    ...(m.tasks.length ? m.tasks.map((t) => `- [${t.done ? 'x' : ' '}] ${t.id}: ${t.text}`) : ['none']),
    ...(m.blockers.length ? ['', '## Blockers', ...m.blockers.map((b) => `- ${b}`)] : []),
    ...(m.notes.length ? ['', '## Notes', ...m.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}

async function pathExists(fs: RuntimeFs, path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return false;
    throw error;
  }
}
