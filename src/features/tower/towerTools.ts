import { inject, injectable } from 'inversify';
import type { z } from 'zod';
import { createServiceId } from '../../di/serviceId';
import { type AgentToolContribution, registerAgentToolService, type ServiceAccessor } from '../../di/toolContribution';
import { IAppEnvironment, isFlagOn } from '../../services/environment/environment';
import { IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { AgentTowerService, type MissionPatch, type TowerReport } from './agentTowerService';
import { type MissionStatus, TOWER_FLAG, TOWER_STATE_KEY, TowerError } from './contract';
import * as schemas from './towerSchemas';

/** What a Tower tool is: its input, whether it writes the state, and what it does. */
interface TowerToolSpec<I> {
  readonly name: string;
  /** The description template beside this file (`${TOWER_FLAG}` is filled in). */
  readonly descriptionFile: string;
  readonly schema: z.ZodType<I>;
  readonly writes: boolean;
  readonly runsGit: boolean;
  readonly summary: (input: I) => string;
  readonly call: (tower: AgentTowerService, input: I) => Promise<TowerReport>;
  readonly samples: readonly I[];
  /** Orchestration (main agent only) or shared with workers. */
  readonly mainOnly: boolean;
  /** Asks before it runs (spawns agents, merges, removes worktrees). */
  readonly asks: boolean;
}

const towerOn = (accessor: ServiceAccessor) => isFlagOn(accessor.get(IAppEnvironment), TOWER_FLAG);

function defineTowerTool<I>(spec: TowerToolSpec<I>): AgentToolContribution {
  const parameters = toInputJsonSchema(spec.schema);
  @injectable()
  class TowerTool implements ExecutableTool<I> {
    readonly name = spec.name;
    get description(): string {
      return renderPrompt(loadDescriptionTemplate(__dirname, spec.descriptionFile), { TOWER_FLAG });
    }
    readonly parameters: JsonSchema = parameters;
    readonly annotations = { readOnlyHint: !spec.writes, destructiveHint: spec.name === 'TowerTeardown', openWorldHint: false };
    constructor(@inject(AgentTowerService) private readonly tower: AgentTowerService) {}
    resolveExecution(input: I): ToolExecution {
      const state = spec.writes ? ToolAccesses.writeState(TOWER_STATE_KEY) : ToolAccesses.readState(TOWER_STATE_KEY);
      return {
        accesses: spec.runsGit ? [state, ToolAccesses.process()] : [state],
        description: spec.summary(input),
        display: { kind: 'generic', summary: spec.summary(input) },
        approvalRule: spec.name,
        execute: async (): Promise<ToolResult> => {
          try {
            return await spec.call(this.tower, input);
          } catch (error) {
            if (error instanceof TowerError) return toolError(error.message);
            throw error;
          }
        },
      };
    }
  }
  Object.defineProperty(TowerTool, 'name', { value: `${spec.name}Tool` });
  return registerAgentToolService(createServiceId<TowerTool>(`tool.${spec.name}`), TowerTool, {
    name: spec.name,
    domain: 'tower',
    // It runs git: also through the runtime; fs is needed for .tower/.
    requiredRuntimeCapabilities: ['fs', 'process'],
    approval: spec.asks ? 'ask' : 'auto',
    samples: spec.samples,
    when: spec.mainOnly ? (accessor) => towerOn(accessor) && isMainAgent(accessor.get(IAgentOptions)) : towerOn,
  });
}

export const towerTools: readonly AgentToolContribution[] = [
  defineTowerTool({
    name: 'TowerInit',
    descriptionFile: 'towerInit.md',
    schema: schemas.TowerInitInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: true,
    asks: false,
    summary: () => 'Starting tower mode',
    call: (tower) => tower.init(),
    samples: [{}],
  }),
  defineTowerTool<schemas.TowerPlanInput>({
    name: 'TowerPlan',
    descriptionFile: 'towerPlan.md',
    schema: schemas.TowerPlanInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: true,
    asks: false,
    summary: (input) => `Planning ${input.missions.length} tower missions`,
    call: (tower, input) => tower.plan(input.missions),
    samples: [{ missions: [{ title: 'Parser CRLF', scope: ['src/parser/**'], tasks: ['Handle CRLF'] }, { title: 'Survey docs', scope: ['docs/**'], kind: 'survey', deps: ['M1'] }] }],
  }),
  defineTowerTool<schemas.TowerSpawnInput>({
    name: 'TowerSpawn',
    descriptionFile: 'towerSpawn.md',
    schema: schemas.TowerSpawnInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: true,
    asks: true,
    summary: (input) => `Spawning tower ${input.kind} ${input.name}${input.mission_id ? ` on ${input.mission_id}` : input.review_target ? ` for ${input.review_target}` : ''}`,
    call: (tower, input) => tower.spawn(input),
    samples: [{ name: 'parser-worker', kind: 'worker', mission_id: 'M1' }, { name: 'rev-1', kind: 'reviewer', review_target: 'feat/parser-crlf', instructions: 'Focus on tests.' }],
  }),
  defineTowerTool<schemas.TowerMergeInput>({
    name: 'TowerMerge',
    descriptionFile: 'towerMerge.md',
    schema: schemas.TowerMergeInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: true,
    asks: true,
    summary: (input) => `Merging ${input.branch}`,
    call: (tower, input) => tower.merge(input.branch),
    samples: [{ branch: 'feat/parser-crlf' }],
  }),
  defineTowerTool<schemas.TowerTeardownInput>({
    name: 'TowerTeardown',
    descriptionFile: 'towerTeardown.md',
    schema: schemas.TowerTeardownInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: true,
    asks: true,
    summary: (input) => `Ending tower mode${input.force ? ' (force)' : ''}`,
    call: (tower, input) => tower.teardown(input.force === true),
    samples: [{}, { force: true }],
  }),
  defineTowerTool<schemas.TowerSendInput>({
    name: 'TowerSend',
    descriptionFile: 'towerSend.md',
    schema: schemas.TowerSendInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: (input) => `Sending "${input.subject}" to ${input.to}`,
    call: (tower, input) => tower.send(input),
    samples: [{ to: 'tower', subject: 'M1 done', body: 'All tasks ticked.' }],
  }),
  defineTowerTool<schemas.TowerInboxInput>({
    name: 'TowerInbox',
    descriptionFile: 'towerInbox.md',
    schema: schemas.TowerInboxInputSchema,
    writes: false,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: () => 'Reading the tower inbox',
    call: (tower, input) => tower.inbox(input.limit ?? 20),
    samples: [{}, { limit: 5 }],
  }),
  defineTowerTool<schemas.TowerFindingInput>({
    name: 'TowerFinding',
    descriptionFile: 'towerFinding.md',
    schema: schemas.TowerFindingInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: (input) => `Reporting ${input.type}: ${input.title}`,
    call: (tower, input) => tower.finding(input),
    samples: [{ type: 'bug', title: 'Off by one', summary: 's', details: 'd', suggested_fix: 'f' }],
  }),
  defineTowerTool<schemas.TowerReviewInput>({
    name: 'TowerReview',
    descriptionFile: 'towerReview.md',
    schema: schemas.TowerReviewInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: (input) => `Reviewing ${input.target}: ${input.status}`,
    call: (tower, input) => tower.review(input),
    samples: [{ target: 'feat/parser-crlf', status: 'clean', merge: 'merge', findings: 'none', decision: 'merge' }],
  }),
  defineTowerTool<schemas.TowerMissionInput>({
    name: 'TowerMission',
    descriptionFile: 'towerMission.md',
    schema: schemas.TowerMissionInputSchema,
    writes: true,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: (input) => `Mission ${input.id}`,
    call: (tower, input) => tower.mission({ ...input, status: input.status as MissionStatus | undefined } satisfies MissionPatch),
    samples: [{ id: 'M1' }, { id: 'M1', task_done: 'T1', note: 'done' }],
  }),
  defineTowerTool({
    name: 'TowerStatus',
    descriptionFile: 'towerStatus.md',
    schema: schemas.TowerStatusInputSchema,
    writes: false,
    runsGit: true,
    mainOnly: false,
    asks: false,
    summary: () => 'Reading the tower status',
    call: (tower) => tower.status(),
    samples: [{}],
  }),
];
