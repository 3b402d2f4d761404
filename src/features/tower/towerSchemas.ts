import { z } from 'zod';
import { MISSION_STATUSES } from './contract';

export const TowerInitInputSchema = z.object({});
export const TowerPlanInputSchema = z.object({
  missions: z
    .array(
      z.object({
        title: z.string().min(1).max(200).describe('What the mission delivers; its branch is feat/<slug of the title>.'),
        scope: z.array(z.string().min(1).max(300)).min(1).max(50).describe('Globs (picomatch, relative to the repository root) of the files the mission may change, e.g. "src/parser/**". Build scopes must not overlap.'),
        tasks: z.array(z.string().min(1).max(500)).max(50).optional().describe('Steps; they get ids T1, T2, … that TowerMission task_done ticks.'),
        deps: z.array(z.string().regex(/^M\d+$/)).max(50).optional().describe('Mission ids (M1, …) that must be merged first.'),
        kind: z.enum(['build', 'survey']).optional().describe('build (default) changes files in its scope; survey only reads and reports.'),
      }),
    )
    .min(1)
    .max(50),
});
export const TowerSpawnInputSchema = z.object({
  name: z.string().min(1).max(32).describe('Roster name: lower-case letters, digits and "-", e.g. "parser-worker".'),
  kind: z.enum(['worker', 'reviewer']),
  mission_id: z.string().optional().describe('For a worker (required): the mission it works on.'),
  review_target: z.string().optional().describe('For a reviewer (required): the branch it reviews.'),
  instructions: z.string().max(8000).optional().describe('Extra instructions appended to the briefing.'),
});
export const TowerMergeInputSchema = z.object({ branch: z.string().min(1).max(200).describe('The mission branch to merge into the base branch.') });
export const TowerTeardownInputSchema = z.object({ force: z.boolean().optional().describe('Remove worktrees with uncommitted changes too.') });
export const TowerSendInputSchema = z.object({
  to: z.string().min(1).max(32).describe('A roster name, "tower", or "all".'),
  subject: z.string().min(1).max(200),
  body: z.string().min(1).max(20000),
  scope: z.string().max(300).optional(),
  action: z.string().max(200).optional(),
  consent_ref: z.string().max(200).optional(),
});
export const TowerInboxInputSchema = z.object({ limit: z.number().int().positive().max(200).optional().describe('At most this many messages, newest first (default 20).') });
export const TowerFindingInputSchema = z.object({
  type: z.enum(['bug', 'improve', 'vuln', 'idea']),
  title: z.string().min(1).max(200),
  severity: z.enum(['low', 'medium', 'high', 'critical']).optional(),
  summary: z.string().min(1).max(4000),
  location: z.string().max(500).optional(),
  details: z.string().min(1).max(20000),
  suggested_fix: z.string().min(1).max(20000),
});
export const TowerReviewInputSchema = z.object({
  target: z.string().min(1).max(200).describe('The reviewed branch.'),
  status: z.string().describe('clean, p1-<N>items or p2-<N>items.'),
  merge: z.enum(['merge', 'fix-then-merge', 'hold']),
  findings: z.string().max(20000),
  checks: z.string().max(20000).optional(),
  decision: z.string().min(1).max(4000),
});
export const TowerMissionInputSchema = z.object({
  id: z.string().regex(/^M\d+$/).describe('The mission id; with nothing else, returns the mission.'),
  status: z.enum(MISSION_STATUSES as [string, ...string[]]).optional(),
  note: z.string().max(4000).optional(),
  blocker: z.string().max(4000).optional().describe('Adds a blocker and sets status blocked.'),
  clear_blockers: z.boolean().optional(),
  task_done: z.string().regex(/^T\d+$/).optional().describe('The id of the task to tick (e.g. "T2").'),
  scope: z.array(z.string().min(1).max(300)).min(1).max(50).optional().describe('Tower only: the new scope (disjointness is checked again).'),
});
export const TowerStatusInputSchema = z.object({});

export type TowerPlanInput = z.infer<typeof TowerPlanInputSchema>;
export type TowerSpawnInput = z.infer<typeof TowerSpawnInputSchema>;
export type TowerMergeInput = z.infer<typeof TowerMergeInputSchema>;
export type TowerTeardownInput = z.infer<typeof TowerTeardownInputSchema>;
export type TowerSendInput = z.infer<typeof TowerSendInputSchema>;
export type TowerInboxInput = z.infer<typeof TowerInboxInputSchema>;
export type TowerFindingInput = z.infer<typeof TowerFindingInputSchema>;
export type TowerReviewInput = z.infer<typeof TowerReviewInputSchema>;
export type TowerMissionInput = z.infer<typeof TowerMissionInputSchema>;
