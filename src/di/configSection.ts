import type { z } from 'zod';

/**
 * A top-level section of toolhost.json that a feature brings (`read`, `grep`, `mcpServers`, …).
 * The App composes the root schema from the core sections and those of the features it was given;
 * a service reads its section with `IConfigService.section(handle)`, typed by the schema.
 */
export interface ConfigSection<K extends string = string, S extends z.ZodType = z.ZodType> {
  readonly key: K;
  /** Validates the section; it must accept a missing section (give it defaults, e.g. `.prefault({})`). */
  readonly schema: S;
}

/** The validated value of a section. */
export type ConfigSectionValue<C extends ConfigSection> = z.output<C['schema']>;

/** The raw, optional input of a section, as a host writes it. */
export type ConfigSectionInput<C extends ConfigSection> = { readonly [P in C['key']]?: z.input<C['schema']> };

export const CONFIG_SECTION_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9]*$/;

export class ConfigSectionError extends Error {
  override readonly name = 'ConfigSectionError';
}

/** Declares a config section. Pure: it checks the key and that a missing section gets defaults. */
export function defineConfigSection<K extends string, S extends z.ZodType>(key: K, schema: S): ConfigSection<K, S> {
  if (!CONFIG_SECTION_KEY_PATTERN.test(key)) {
    throw new ConfigSectionError(`Config section key "${key}" is invalid: use letters and digits, starting with a letter.`);
  }
  if (!schema.safeParse(undefined).success) {
    throw new ConfigSectionError(`Config section "${key}" must accept a missing section: give its schema defaults (e.g. .prefault({})).`);
  }
  return Object.freeze({ key, schema });
}
