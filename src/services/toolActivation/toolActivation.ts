import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { ServiceAccessor } from '../../di/toolContribution';

export type ToolActivationState = 'active' | 'inactive' | 'failed' | 'conflict';

export interface ToolActivationStatus {
  readonly name: string;
  readonly state: ToolActivationState;
  /** Why the tool is not active, e.g. `the runtime lacks "fs"`. */
  readonly reason?: string;
}

export interface ToolActivationFailure {
  readonly name: string;
  readonly reason: string;
}

/**
 * Keeps the agent's builtin tools in step with their inputs (Agent scope): runtime capabilities,
 * the layered tool policy and each tool's `when`. The active set is derived state: any change of
 * an input recomputes it, adding and removing tools. A tool is constructed only when it passes.
 */
export interface IAgentToolActivationService {
  /** Recomputes the active set now (it also runs on every input change). */
  recompute(): void;
  /** Every contributed tool with its state, sorted by name. */
  status(): readonly ToolActivationStatus[];
  readonly onDidFail: Event<ToolActivationFailure>;
}
export const IAgentToolActivationService = createServiceId<IAgentToolActivationService>('AgentToolActivationService');

/** Resolves services from the agent's container (bound by the Agent scope). */
export const IAgentServiceAccessor = createServiceId<ServiceAccessor>('AgentServiceAccessor');
