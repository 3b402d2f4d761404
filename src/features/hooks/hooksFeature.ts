import { Feature } from '../../di/feature';
import { IAgentOptions } from '../../services/workspace/workspace';
import { AgentCommandHooksService } from './agentCommandHooksService';
import { IAgentCommandHooksService, ICommandHookSessionId } from './commandHooks';
import { hooksConfig } from './hooksConfig';

/** Command hooks from config `hooks` (PreToolUse, PostToolUse), wired into every agent's executor. */
export function createHooksFeature() {
  return (
    new Feature('hooks')
      .contributeConfig(hooksConfig)
      .bindAgent(({ bind }) => {
        bind(ICommandHookSessionId).toDynamicValue((context) => context.get(IAgentOptions).id);
        bind(IAgentCommandHooksService).to(AgentCommandHooksService).inSingletonScope();
      })
      // It registers executor hooks on its own.
      .startWithAgent(IAgentCommandHooksService)
  );
}
