import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import type { ConfigSection, ConfigSectionValue } from '../../di/configSection';
import type { IConfigService } from './config';
import { IInitialConfig, IInitialConfigSchema } from './config';
import { parseConfig } from './configLoader';
import { type ComposedConfigSchema, CoreConfigSchema, type ToolhostConfig, type ToolhostConfigInput } from './configSchema';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * `patch` laid over `base`: objects merge key by key (so `{approval: {deny: [...]}}` keeps
 * `approval.allow`, and `{mcpServers: {b: …}}` adds a server), arrays and other values replace,
 * and a key set to `undefined` is removed (back to its default; `{mcpServers: {a: undefined}}`
 * removes a server). Past `depth` levels a patch value replaces whole (this bounds the walk).
 */
export function mergeConfig(base: unknown, patch: unknown, depth = 32): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch) || depth <= 0) return patch;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete merged[key];
    else merged[key] = key in base ? mergeConfig(base[key], value, depth - 1) : value;
  }
  return merged;
}

@injectable()
export class ConfigService implements IConfigService {
  private current: ToolhostConfig;
  private currentSchema: ComposedConfigSchema;
  private readonly changed = new Emitter<ToolhostConfig>();
  readonly onDidChange = this.changed.event;

  constructor(@inject(IInitialConfig) initial: ToolhostConfig, @inject(IInitialConfigSchema) schema: ComposedConfigSchema) {
    this.current = initial;
    this.currentSchema = schema;
  }

  get config(): ToolhostConfig {
    return this.current;
  }

  get schema(): ComposedConfigSchema {
    return this.currentSchema;
  }

  section<C extends ConfigSection>(section: C): ConfigSectionValue<C> {
    if (!this.currentSchema.sections.some((s) => s.key === section.key)) {
      const owner = this.currentSchema.absentOwners.get(section.key);
      throw new Error(`Config section "${section.key}" is not part of this App${owner ? `: add feature "${owner}"` : ''}.`);
    }
    return this.current[section.key] as ConfigSectionValue<C>;
  }

  replace(input: unknown, source?: string): void {
    this.current = parseConfig(input, source, this.currentSchema);
    this.changed.fire(this.current);
  }

  update(sections: Partial<ToolhostConfigInput>): void {
    this.replace(mergeConfig(this.current, sections));
  }

  setSchema(schema: ComposedConfigSchema): void {
    const known = new Set([...Object.keys(CoreConfigSchema.shape), ...schema.sections.map((s) => s.key)]);
    const kept = Object.fromEntries(Object.entries(this.current).filter(([key]) => known.has(key)));
    const next = parseConfig(kept, 'configuration', schema);
    this.currentSchema = schema;
    this.current = next;
    this.changed.fire(this.current);
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
  }
}
