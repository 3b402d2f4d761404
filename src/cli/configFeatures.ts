import { createRequire, Module } from 'node:module';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../base/errors';
import { defineConfigSection } from '../di/configSection';
import { Feature } from '../di/feature';
import { type HostLibrary, UsageError } from './io';

/** `features` in toolhost.json: modules (paths relative to the file, or package names) whose Features the CLI loads. */
export const featuresConfig = defineConfigSection(
  'features',
  z
    .array(z.string().min(1))
    .default([])
    .describe('Modules the CLI loads Features from: paths relative to this file, or package names resolved from its folder. Read at start.'),
);

/** The CLI's own feature: it owns the `features` section, so the App accepts (and a reload keeps) the key. */
export function createCliFeature(): Feature {
  return new Feature('cli').contributeConfig(featuresConfig);
}

/** A configured feature module: where it is named and what it gave. */
export interface LoadedFeatureModule {
  readonly specifier: string;
  readonly features: readonly Feature[];
}

/**
 * Loads the `features` of a configuration read from `configFile`. Every problem (not a list,
 * a module not found, throwing while loading, exporting no Feature) is a UsageError naming the module.
 */
export function loadConfiguredFeatures(configInput: unknown, configFile: string | undefined, configSource: string, library: HostLibrary | undefined): LoadedFeatureModule[] {
  const raw = typeof configInput === 'object' && configInput !== null ? (configInput as Record<string, unknown>).features : undefined;
  if (raw === undefined) return [];
  const parsed = featuresConfig.schema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${configSource}: "features" must be an array of module paths (relative to the file) or package names.`);
  if (parsed.data.length === 0) return [];
  // Without a file (defaults) there is no list; with one, names resolve from its folder.
  const requireFrom = createRequire(configFile ?? nodePath.join(process.cwd(), 'toolhost.json'));
  return parsed.data.map((specifier) => {
    const where = `${configSource}: features: module "${specifier}"`;
    let file: string;
    try {
      file = requireFrom.resolve(specifier);
    } catch (error) {
      throw new UsageError(`${where} was not found from ${nodePath.dirname(configFile ?? '.')} (${firstLine(errorMessage(error))}). Give a path relative to the config file or an installed package name.`);
    }
    if (library) shareLibrary(file, library);
    let exported: unknown;
    try {
      exported = requireFrom(file);
    } catch (error) {
      throw new UsageError(`${where} threw while loading: ${firstLine(errorMessage(error))}`);
    }
    const features = featuresOf(exported);
    if (typeof features === 'string') throw new UsageError(`${where} ${features}`);
    return { specifier, features };
  });
}

/**
 * Makes the library specifiers, as the module at `file` resolves them, load the host's copy: the
 * require cache gets the host's exports under each resolved file. Both `require` and `import`
 * (whose CommonJS interop reads that cache) then get them.
 */
function shareLibrary(file: string, library: HostLibrary): void {
  const requireFromModule = createRequire(file);
  for (const [specifier, load] of Object.entries(library)) {
    let resolved: string;
    try {
      resolved = requireFromModule.resolve(specifier);
    } catch {
      continue; // the module does not depend on it
    }
    if (require.cache[resolved]?.exports === load()) continue;
    const shared = new Module(resolved);
    shared.filename = resolved;
    shared.loaded = true;
    shared.exports = load();
    require.cache[resolved] = shared;
  }
}

const NO_FEATURE = 'exports no Feature: export one (`export const feature = new Feature(…)`), an array of them, or a default export of either.';

/** The Features a module exports, or why it exports none. */
function featuresOf(exported: unknown): Feature[] | string {
  const direct = asFeatures(exported);
  if (direct) return direct;
  if (typeof exported !== 'object' || exported === null) return NO_FEATURE;
  const record = exported as Record<string, unknown>;
  if (record.default !== undefined) return asFeatures(record.default) ?? describeNonFeature(record.default);
  const named = Object.values(record).flatMap((value) => asFeatures(value) ?? []);
  if (named.length > 0) return named;
  const foreign = Object.values(record).find(isForeignFeature);
  return foreign ? FOREIGN_FEATURE : NO_FEATURE;
}

function asFeatures(value: unknown): Feature[] | undefined {
  if (value instanceof Feature) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((item) => item instanceof Feature)) return value as Feature[];
  return undefined;
}

const FOREIGN_FEATURE =
  'exports a Feature made with another copy of toolhost (not the one running this CLI): import Feature and everything else from "toolhost" itself, not from a path into a toolhost folder.';

function describeNonFeature(value: unknown): string {
  const items = Array.isArray(value) ? value : [value];
  return items.some(isForeignFeature) ? FOREIGN_FEATURE : `has a default export that is not a Feature or an array of Features. ${NO_FEATURE}`;
}

/** An object whose class is named Feature but is not ours: built against another toolhost copy. */
function isForeignFeature(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !(value instanceof Feature) && value.constructor?.name === 'Feature';
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
