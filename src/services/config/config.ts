import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { ToolhostConfig, ToolhostConfigInput } from './configSchema';

/** The validated configuration (App scope). Changes are announced; agents recompute from them. */
export interface IConfigService {
  readonly config: ToolhostConfig;
  readonly onDidChange: Event<ToolhostConfig>;
  /** Validates and replaces the whole configuration. Throws ConfigError and keeps the old one. */
  replace(input: ToolhostConfigInput): void;
  /** Validates and replaces the given top-level sections. Throws ConfigError and keeps the old one. */
  update(sections: Partial<ToolhostConfigInput>): void;
}
export const IConfigService = createServiceId<IConfigService>('ConfigService');

/** The configuration an App starts with (bound as a constant by createApp). */
export const IInitialConfig = createServiceId<ToolhostConfig>('InitialConfig');
