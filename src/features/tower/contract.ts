/** The env flag that adds the Tower tools at App assembly (experimental, off by default). */
export const TOWER_FLAG = 'TOOLHOST_EXPERIMENTAL_TOWER';

/** The state key the Tower tools declare (they read and write `.tower/comms/state.json`). */
export const TOWER_STATE_KEY = 'tower';

/** An expected refusal (bad input, a gate, a protocol rule); the message says what to do next. */
export class TowerError extends Error {
  override readonly name = 'TowerError';
}

export type MissionKind = 'build' | 'survey';
export type MissionStatus = 'planned' | 'active' | 'blocked' | 'done' | 'merged';
export const MISSION_STATUSES: readonly MissionStatus[] = ['planned', 'active', 'blocked', 'done', 'merged'];

export interface MissionTask {
  /** `T1`, `T2`, … within the mission. */
  readonly id: string;
  readonly text: string;
  readonly done: boolean;
}

export interface Mission {
  /** `M1`, `M2`, … */
  readonly id: string;
  readonly title: string;
  readonly kind: MissionKind;
  /** picomatch globs, relative to the repository root. */
  readonly scope: readonly string[];
  readonly tasks: readonly MissionTask[];
  readonly deps: readonly string[];
  /** `feat/<slug>` */
  readonly branch: string;
  /** `wt-N`, under `.tower/worktrees/`. */
  readonly worktree: string;
  readonly status: MissionStatus;
  /** The roster name working on it. */
  readonly owner?: string;
  readonly notes: readonly string[];
  readonly blockers: readonly string[];
}

export type RosterKind = 'worker' | 'reviewer';
export type RosterStatus = 'running' | 'completed' | 'failed' | 'aborted' | 'retired';

export interface RosterEntry {
  readonly name: string;
  readonly kind: RosterKind;
  readonly agentId: string;
  readonly taskId: string;
  readonly missionId?: string;
  readonly reviewTarget?: string;
  readonly status: RosterStatus;
  readonly spawnedAt: string;
}

export type ReviewMerge = 'merge' | 'fix-then-merge' | 'hold';

export interface ReviewRecord {
  /** The reviewed branch. */
  readonly target: string;
  readonly round: number;
  readonly status: string;
  readonly merge: ReviewMerge;
  /** The branch tip when the review was submitted: a later commit needs a new review. */
  readonly reviewedCommit: string;
  readonly reviewer: string;
  /** Relative to `.tower/comms/`. */
  readonly file: string;
  readonly at: string;
}

/** `.tower/comms/state.json`: `version` grows by one on every write (compare-and-set). */
export interface TowerState {
  readonly version: number;
  readonly active: boolean;
  readonly baseBranch: string;
  /** The main agent that owns the workspace. */
  readonly owner: string;
  readonly missions: readonly Mission[];
  readonly roster: readonly RosterEntry[];
  readonly reviews: readonly ReviewRecord[];
  /** The next `wt-N`. */
  readonly nextWorktree: number;
  /** The spawn rate limiter (TowerSpawn); absent until the first spawn. */
  readonly spawnBudget?: SpawnBudget;
}

/**
 * A token bucket: each spawn takes a slot; one slot comes back every TOWER_SPAWN_PAUSE_MS, at most
 * TOWER_MAX_BUDGET banked. A burst of 16 spawns, then one a minute: a tower that keeps respawning
 * workers that fail cannot run away with the model budget.
 */
export interface SpawnBudget {
  readonly slots: number;
  /** When the last slot came back (epoch ms); the next one comes TOWER_SPAWN_PAUSE_MS later. */
  readonly at: number;
}

/** The spawn budget's size (the reference's TOWER_MAX_BUDGET). */
export const TOWER_MAX_BUDGET = 16;
/** One spawn slot comes back after this long (the reference's TOWER_SPAWN_PAUSE_MS). */
export const TOWER_SPAWN_PAUSE_MS = 60_000;

/** The budget at `now`: the slots that came back since `budget.at` added (a full bucket when there is none yet). */
export function refillSpawnBudget(budget: SpawnBudget | undefined, now: number): SpawnBudget {
  if (!budget) return { slots: TOWER_MAX_BUDGET, at: now };
  const back = Math.max(0, Math.floor((now - budget.at) / TOWER_SPAWN_PAUSE_MS));
  const slots = Math.min(TOWER_MAX_BUDGET, budget.slots + back);
  return { slots, at: slots === TOWER_MAX_BUDGET ? Math.max(budget.at, now) : budget.at + back * TOWER_SPAWN_PAUSE_MS };
}

/** Milliseconds until the next slot comes back (0 when the budget is full). */
export function nextSpawnSlotMs(budget: SpawnBudget, now: number): number {
  return budget.slots >= TOWER_MAX_BUDGET ? 0 : Math.max(0, budget.at + TOWER_SPAWN_PAUSE_MS - now);
}
