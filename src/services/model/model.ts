import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import { DYNAMICALLY_LOADED_TOOLS_CAPABILITY } from '../toolSelect/toolSelect';

/** A capability a model declares, e.g. `dynamically_loaded_tools`, `image_in`. */
export type ModelCapability = string;

/**
 * The capabilities toolhost knows: `dynamically_loaded_tools` (deferred tool loading with
 * select_tools), `image_in` and `video_in` (the model reads images and video). The CLI refuses
 * others, since a misspelt capability would silently change nothing.
 */
export const KNOWN_MODEL_CAPABILITIES: readonly ModelCapability[] = [DYNAMICALLY_LOADED_TOOLS_CAPABILITY, 'image_in', 'video_in'];

/** What the agent's current model can do (Agent scope); a host updates it when it switches models. */
export interface IAgentModelService {
  readonly capabilities: ReadonlySet<ModelCapability>;
  has(capability: ModelCapability): boolean;
  setCapabilities(capabilities: readonly ModelCapability[]): void;
  readonly onDidChange: Event<ReadonlySet<ModelCapability>>;
}
export const IAgentModelService = createServiceId<IAgentModelService>('AgentModelService');

/** The capabilities an agent starts with (bound as a constant by the Agent scope). */
export const IInitialModelCapabilities = createServiceId<readonly ModelCapability[]>('InitialModelCapabilities');
