import { ToolAccesses } from '../../tool/accesses';
import { type ToolResult, toolError } from '../../tool/contract';
import type { ServiceAccessor } from '../../di/toolContribution';
import { IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { GoalError, type GoalReport } from './contract';
import { GOAL_STATE_KEY, goalFields, goalLines } from './goalModel';

export const readGoal = () => [ToolAccesses.readState(GOAL_STATE_KEY)];
export const writeGoal = () => [ToolAccesses.writeState(GOAL_STATE_KEY)];

/** The goal tools exist on a main agent only (a subagent works on its prompt, not on the user's goal). */
export const onMainAgent = (accessor: ServiceAccessor): boolean => isMainAgent(accessor.get(IAgentOptions));

/** `key: value` lines of the goal, a blank line and a note; the same fields as structured content. */
export function goalResult(report: GoalReport, note?: string, extra: Pick<ToolResult, 'stopTurn'> = {}): ToolResult {
  return { output: goalLines(report) + (note ? `\n\n${note}` : ''), structuredContent: goalFields(report), ...extra };
}

/** Runs a goal operation; a GoalError is the call's error result, with its message for the model. */
export async function goalCall(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GoalError) return toolError(error.message);
    throw error;
  }
}
