import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { JsonSchema, ToolDisclosure, ToolSource } from '../../tool/contract';

export const SELECT_TOOLS_NAME = 'select_tools';
export const DYNAMICALLY_LOADED_TOOLS_CAPABILITY = 'dynamically_loaded_tools';

/** A tool as a model sees it. */
export interface ModelToolInfo {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly source: ToolSource;
  readonly disclosure: ToolDisclosure;
}

export interface LoadOutcome {
  readonly loaded: readonly string[];
  readonly alreadyAvailable: readonly string[];
  readonly unknown: readonly string[];
}

/**
 * Deferred tool loading and the model-facing tool list (Agent scope). When the flag
 * TOOLHOST_EXPERIMENTAL_TOOL_SELECT is on and the model declares `dynamically_loaded_tools`,
 * active tools with `disclosure: 'deferred'` stay out of the tool list until `select_tools` loads
 * them; their names are announced in `<tools_added>` / `<tools_removed>` blocks. Otherwise
 * deferred tools are simply inline.
 */
export interface IAgentToolSelectService {
  /** Whether deferred loading is on for this agent now. */
  readonly enabled: boolean;
  readonly onDidChangeEnabled: Event<boolean>;
  /** The tools to send to the model: active, and for deferred ones, loaded. Sorted by name. */
  modelTools(): ModelToolInfo[];
  /** Active deferred tools (loaded or not), sorted; empty when deferred loading is off. */
  loadableTools(): string[];
  isLoaded(name: string): boolean;
  load(names: readonly string[]): LoadOutcome;
  /**
   * The names that became loadable or stopped being loadable since the last call, as the block
   * a host puts in the model's context; undefined when nothing changed.
   */
  takeAnnouncement(): string | undefined;
  /** Fires when the model-facing tool list may have changed. */
  readonly onDidChangeModelTools: Event<void>;
}
export const IAgentToolSelectService = createServiceId<IAgentToolSelectService>('AgentToolSelectService');
