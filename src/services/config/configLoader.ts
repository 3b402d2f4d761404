import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { isErrnoException } from '../../base/errors';
import { InputTooLargeError, NotRegularFileError, readRegularFileSync } from '../../base/fs/openedFile';
import { closestMatch, formatBytes } from '../../base/strings';
import { CORE_CONFIG_SCHEMA, type ComposedConfigSchema, type ToolhostConfig } from './configSchema';

export const CONFIG_FILE_NAME = 'toolhost.json';

export interface ConfigIssue {
  /** Dotted key path, e.g. `read.maxChars` or `profiles.review.tools[0]`; '' for the root. */
  readonly path: string;
  readonly message: string;
}

/** Bad configuration. The message lists every problem with its key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(`Invalid configuration in ${source}:\n` + issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n'));
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const text = String(key);
      out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text) ? (out ? '.' : '') + text : `[${JSON.stringify(text)}]`;
    }
  }
  return out;
}

/** The keys an object schema accepts at a path, for "did you mean" hints. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(key)];
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else return [];
  }
  current = unwrap(current);
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else break;
  }
  return current;
}

/**
 * The problems of a failed parse, with key paths. An unknown key gets a "did you mean", or the
 * feature it belongs to when `absentOwners` knows one (a top-level key of a feature not loaded).
 */
export function configIssuesFromZod(error: z.ZodError, schema: z.ZodType, absentOwners: ReadonlyMap<string, string> = new Map()): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const owner = issue.path.length === 0 ? absentOwners.get(key) : undefined;
        if (owner !== undefined) {
          issues.push({ path: formatPath([key]), message: `unknown key: it belongs to feature "${owner}", which this App was created without` });
          continue;
        }
        const suggestion = closestMatch(key, known);
        issues.push({
          path: formatPath([...issue.path, key]),
          message: `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : ''}`,
        });
      }
      continue;
    }
    issues.push({ path: formatPath(issue.path), message: issue.message.replace(/^Invalid input: /, '') });
  }
  return issues;
}

/** Validates raw configuration (already parsed JSON) against an App's schema and fills in defaults. */
export function parseConfig(input: unknown, source = 'configuration', schema: ComposedConfigSchema = CORE_CONFIG_SCHEMA): ToolhostConfig {
  // Only a missing configuration means the defaults; `null` is a mistake worth naming.
  const result = schema.schema.safeParse(input === undefined ? {} : input);
  if (!result.success) throw new ConfigError(source, configIssuesFromZod(result.error, schema.schema, schema.absentOwners));
  return result.data;
}

/** The most a configuration file may be: it is JSON settings, not data. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

function unreadableReason(error: unknown): string {
  if (isErrnoException(error) && error.code === 'ENOENT') return 'file not found';
  if (error instanceof NotRegularFileError) return `it is a ${error.kind}, not a regular file: give the path of a JSON file`;
  if (error instanceof InputTooLargeError) return `it is larger than ${formatBytes(MAX_CONFIG_FILE_BYTES)}, the most a configuration file may be`;
  return (error as Error).message;
}

/**
 * Reads a config file as JSON (validation is the App's: it knows the features' sections). A
 * missing file given explicitly, one that is not a regular file (a FIFO, a device) or over
 * MAX_CONFIG_FILE_BYTES, or text that is not JSON is a ConfigError.
 */
export function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_CONFIG_FILE_BYTES).toString('utf8');
  } catch (error) {
    throw new ConfigError(file, [{ path: '', message: unreadableReason(error) }]);
  }
  let json: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte-order mark; it is not part of the JSON.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new ConfigError(file, [{ path: '', message: `not valid JSON: ${(error as Error).message}` }]);
  }
  return json;
}

/**
 * The raw configuration for a working directory: `explicitFile` if given, else `toolhost.json` in
 * `cwd` if present, else none (`{}`, the defaults). `source` names it in error messages.
 */
export function readConfigFor(cwd: string, explicitFile?: string): { input: unknown; file?: string; source: string } {
  if (explicitFile) {
    const file = nodePath.resolve(cwd, explicitFile);
    return { input: readConfigFile(file), file, source: file };
  }
  const file = nodePath.join(cwd, CONFIG_FILE_NAME);
  if (fs.existsSync(file)) return { input: readConfigFile(file), file, source: file };
  return { input: {}, source: 'defaults' };
}
