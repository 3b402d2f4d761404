import { Feature } from '../../di/feature';
import { ISubagentRunnerService } from './contract';
import { SubagentRunnerService } from './subagentRunnerService';

/** Subagents: the App's runner slot (ISubagentRunnerService) and the Agent tool, active while a runner is bound. */
export function createAgentFeature() {
  return new Feature('agent').bindApp(({ bind }) => bind(ISubagentRunnerService).to(SubagentRunnerService).inSingletonScope(), [ISubagentRunnerService]);
}
