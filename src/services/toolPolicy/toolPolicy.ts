import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { ToolSource } from '../../tool/contract';
import type { ToolPolicyLayerName, ToolPolicyLayers, ToolPolicyOptions } from '../../toolPolicy/evaluate';

/**
 * The agent's layered tool policy (Agent scope): workspace vetoes, the profile, config
 * `tools.enabled`/`tools.disabled` and session disables. Activation and the executor's call-time
 * guard both ask it, so they never disagree.
 */
export interface IAgentToolPolicyService {
  readonly layers: ToolPolicyLayers;
  isToolActive(name: string, source?: ToolSource, options?: ToolPolicyOptions): boolean;
  /** The first layer that blocks the tool, or undefined. */
  blockingLayer(name: string, source?: ToolSource, options?: ToolPolicyOptions): ToolPolicyLayerName | undefined;
  readonly sessionDisabledTools: readonly string[];
  setSessionDisabledTools(names: readonly string[]): void;
  /** Fires when any layer changes. */
  readonly onDidChange: Event<void>;
}
export const IAgentToolPolicyService = createServiceId<IAgentToolPolicyService>('AgentToolPolicyService');
