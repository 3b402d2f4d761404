import { createServiceId } from './serviceId';

/**
 * Agent-scope services that must exist from the start because they wire hooks, guards or events
 * (nobody else would construct them). The Agent scope resolves every binding of this id once,
 * after the core is up: `bind(IAgentStartup).toService(IMyService)` in a feature's `bindAgent`.
 */
export const IAgentStartup = createServiceId<object>('AgentStartup');
