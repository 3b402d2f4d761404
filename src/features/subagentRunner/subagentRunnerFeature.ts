import { Feature } from '../../di/feature';
import { ISubagentRunnerConfigBinding, SubagentRunnerConfigBinding } from './subagentRunnerBinding';
import { subagentRunnerConfig } from './subagentRunnerConfig';

/**
 * The subagent runner from toolhost.json (`subagentRunner`): an OpenAI-compatible Chat
 * Completions endpoint bound as the App's runner, so Agent works in the CLI and `mcp serve`
 * without host code. The binding is made when the App's first agent starts (App scope has no
 * startup hook) and follows config edits.
 */
export function createSubagentRunnerFeature() {
  return new Feature('subagentRunner', { requires: ['agent'] })
    .contributeConfig(subagentRunnerConfig)
    .bindApp(({ bind }) => bind(ISubagentRunnerConfigBinding).to(SubagentRunnerConfigBinding).inSingletonScope(), [ISubagentRunnerConfigBinding])
    .startWithAgent(ISubagentRunnerConfigBinding);
}
