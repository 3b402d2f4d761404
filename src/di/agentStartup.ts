import { createServiceId } from './serviceId';

/**
 * Agent-scope services that must exist from the start because they wire hooks, guards or events
 * (nobody else would construct them). A feature lists its own with `feature.startWithAgent(id)`
 * (no binding per agent); this id is for the rest, e.g. a host's `overrides`:
 * `bind(IAgentStartup).toService(IMyService)`. The Agent scope resolves every binding of it once,
 * after the core's and the features' startup services.
 */
export const IAgentStartup = createServiceId<object>('AgentStartup');
