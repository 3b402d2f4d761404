import { inject, injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import type { ExecutableTool, JsonSchema, ToolAnnotations, ToolExecution } from '../../tool/contract';
import { toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { matchTextRule } from '../../tool/ruleMatch';
import { IAgentGoalService } from './contract';
import { NO_GOAL_MESSAGE, shortObjective } from './goalModel';
import {
  CREATE_GOAL_SAMPLES,
  type CreateGoalInput,
  CreateGoalInputSchema,
  GET_GOAL_SAMPLES,
  type GetGoalInput,
  GetGoalInputSchema,
  SET_GOAL_BUDGET_SAMPLES,
  type SetGoalBudgetInput,
  SetGoalBudgetInputSchema,
  UPDATE_GOAL_SAMPLES,
  type UpdateGoalInput,
  UpdateGoalInputSchema,
} from './goalSchemas';
import { goalCall, goalResult, onMainAgent, readGoal, writeGoal } from './goalToolResult';

const ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const description = (file: string) => renderPrompt(loadDescriptionTemplate(__dirname, file), {});

@injectable()
export class CreateGoalTool implements ExecutableTool<CreateGoalInput> {
  readonly name = 'CreateGoal';
  readonly parameters: JsonSchema = toInputJsonSchema(CreateGoalInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(@inject(IAgentGoalService) private readonly goals: IAgentGoalService) {}
  get description(): string {
    return description('createGoal.md');
  }
  resolveExecution(input: CreateGoalInput): ToolExecution {
    const summary = `Goal: ${shortObjective(input.objective)}`;
    return {
      accesses: writeGoal(),
      description: `Setting the goal "${shortObjective(input.objective)}"`,
      display: { kind: 'goal_start', objective: input.objective, ...(input.completion_criterion ? { completionCriterion: input.completion_criterion } : {}), mode: 'manual' },
      approvalRule: 'CreateGoal',
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, summary),
      execute: () =>
        goalCall(async () => {
          const report = await this.goals.create({
            objective: input.objective,
            ...(input.completion_criterion !== undefined ? { completionCriterion: input.completion_criterion } : {}),
            ...(input.token_budget !== undefined ? { tokenBudget: input.token_budget } : {}),
            ...(input.time_budget_minutes !== undefined ? { timeBudgetMinutes: input.time_budget_minutes } : {}),
            ...(input.replace !== undefined ? { replace: input.replace } : {}),
          });
          return goalResult(report, 'Goal created. Work toward it; call UpdateGoal with status complete once the completion criterion is met.');
        }),
    };
  }
}

@injectable()
export class GetGoalTool implements ExecutableTool<GetGoalInput> {
  readonly name = 'GetGoal';
  readonly parameters: JsonSchema = toInputJsonSchema(GetGoalInputSchema);
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
  constructor(@inject(IAgentGoalService) private readonly goals: IAgentGoalService) {}
  get description(): string {
    return description('getGoal.md');
  }
  resolveExecution(): ToolExecution {
    return {
      accesses: readGoal(),
      description: 'Reading the goal',
      display: { kind: 'generic', summary: 'Read the goal' },
      approvalRule: 'GetGoal',
      execute: () =>
        goalCall(async () => {
          const report = await this.goals.get();
          return report ? goalResult(report) : toolError(NO_GOAL_MESSAGE);
        }),
    };
  }
}

@injectable()
export class UpdateGoalTool implements ExecutableTool<UpdateGoalInput> {
  readonly name = 'UpdateGoal';
  readonly parameters: JsonSchema = toInputJsonSchema(UpdateGoalInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(@inject(IAgentGoalService) private readonly goals: IAgentGoalService) {}
  get description(): string {
    return description('updateGoal.md');
  }
  resolveExecution(input: UpdateGoalInput): ToolExecution {
    if (input.status === 'blocked' && !input.reason?.trim()) return toolError('A blocked goal needs a reason: say what blocks it and what would unblock it.');
    // The goal this call was made about (known without I/O once read); execute refuses another one.
    const expectedGoalId = this.goals.knownGoalId;
    return {
      accesses: writeGoal(),
      description: `Marking the goal ${input.status}`,
      display: { kind: 'generic', summary: `Goal ${input.status}${input.reason ? `: ${input.reason}` : ''}` },
      approvalRule: 'UpdateGoal',
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, input.status),
      // The turn ends on a finished or blocked goal: later calls of the batch would work past it.
      stopBatchAfterThis: true,
      execute: () =>
        goalCall(async () => {
          const report = await this.goals.update(input.status, input.reason, expectedGoalId);
          const note = input.status === 'complete' ? 'Goal complete. Tell the user what was achieved.' : 'Goal blocked. Tell the user what blocks it and what you need.';
          return goalResult(report, note, { stopTurn: true });
        }),
    };
  }
}

@injectable()
export class SetGoalBudgetTool implements ExecutableTool<SetGoalBudgetInput> {
  readonly name = 'SetGoalBudget';
  readonly parameters: JsonSchema = toInputJsonSchema(SetGoalBudgetInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(@inject(IAgentGoalService) private readonly goals: IAgentGoalService) {}
  get description(): string {
    return description('setGoalBudget.md');
  }
  resolveExecution(input: SetGoalBudgetInput): ToolExecution {
    const budget = `${input.value} ${input.unit}`;
    const expectedGoalId = this.goals.knownGoalId;
    return {
      accesses: writeGoal(),
      description: `Setting the goal budget to ${budget}`,
      display: { kind: 'generic', summary: `Goal budget: ${budget}` },
      approvalRule: `SetGoalBudget(${budget})`,
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, budget),
      execute: () =>
        goalCall(async () => {
          const report = await this.goals.setBudget(input.value, input.unit, expectedGoalId);
          const note = report.status === 'budget_limited' ? `Budget set to ${budget}; the goal is still over budget.` : `Budget set to ${budget}; the goal is ${report.status}.`;
          return goalResult(report, note);
        }),
    };
  }
}

export const ICreateGoalTool = createServiceId<CreateGoalTool>('tool.CreateGoal');
export const IGetGoalTool = createServiceId<GetGoalTool>('tool.GetGoal');
export const IUpdateGoalTool = createServiceId<UpdateGoalTool>('tool.UpdateGoal');
export const ISetGoalBudgetTool = createServiceId<SetGoalBudgetTool>('tool.SetGoalBudget');

const common = { domain: 'goal', requiredRuntimeCapabilities: [], when: onMainAgent } as const;
export const createGoalTool = registerAgentToolService(ICreateGoalTool, CreateGoalTool, {
  ...common,
  name: 'CreateGoal',
  // Its own goal in the agent's state; the description limits it to goals the user asked for.
  approval: 'auto',
  samples: CREATE_GOAL_SAMPLES,
});
export const getGoalTool = registerAgentToolService(IGetGoalTool, GetGoalTool, { ...common, name: 'GetGoal', samples: GET_GOAL_SAMPLES });
export const updateGoalTool = registerAgentToolService(IUpdateGoalTool, UpdateGoalTool, { ...common, name: 'UpdateGoal', approval: 'auto', samples: UPDATE_GOAL_SAMPLES });
export const setGoalBudgetTool = registerAgentToolService(ISetGoalBudgetTool, SetGoalBudgetTool, {
  ...common,
  name: 'SetGoalBudget',
  // Budgets are the user's: a person confirms each (an approval rule can allow some).
  approval: 'ask',
  samples: SET_GOAL_BUDGET_SAMPLES,
});
