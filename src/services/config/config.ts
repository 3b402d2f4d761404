import type { Event } from '../../base/event';
import type { ConfigSection, ConfigSectionValue } from '../../di/configSection';
import { createServiceId } from '../../di/serviceId';
import type { ComposedConfigSchema, ToolhostConfig, ToolhostConfigInput } from './configSchema';

/** The validated configuration (App scope). Changes are announced; agents recompute from them. */
export interface IConfigService {
  /** The whole configuration: the core sections typed, feature sections by key. */
  readonly config: ToolhostConfig;
  readonly onDidChange: Event<ToolhostConfig>;
  /** The schema the configuration is validated with: the core and this App's feature sections. */
  readonly schema: ComposedConfigSchema;
  /** A feature's section, typed by its schema. Throws when no feature of this App contributes it. */
  section<C extends ConfigSection>(section: C): ConfigSectionValue<C>;
  /** Validates and replaces the whole configuration. Throws ConfigError and keeps the old one. */
  replace(input: unknown, source?: string): void;
  /**
   * Validates and applies a partial configuration: objects merge into the current ones key by
   * key, arrays and other values replace, a key set to `undefined` is removed (back to its
   * default). Throws ConfigError and keeps the old one.
   */
  update(sections: Partial<ToolhostConfigInput>): void;
  /**
   * Switches to another schema (the App's features changed): the current configuration is
   * validated again, sections no longer known are dropped and new ones get their defaults.
   */
  setSchema(schema: ComposedConfigSchema): void;
}
export const IConfigService = createServiceId<IConfigService>('ConfigService');

/** The configuration an App starts with (bound as a constant by createApp). */
export const IInitialConfig = createServiceId<ToolhostConfig>('InitialConfig');

/** The schema an App starts with (bound as a constant by createApp). */
export const IInitialConfigSchema = createServiceId<ComposedConfigSchema>('InitialConfigSchema');
